import {
  maskSecret,
  webhookSettingsDecider,
  type WebhookSettingsEvent,
} from '../../../../domain/webhooks/webhook-settings';
import { specFor } from '../../../support/decider-spec';

const at = '2026-03-01T10:00:00.000Z';
const later = '2026-03-02T10:00:00.000Z';
const spec = specFor(webhookSettingsDecider);
const secret = 'a-secret-of-24-characters';
const generatedSecret = 'whsec_generated_secret_value';
const configure = (
  over: Partial<{ url: string; secret: string | null; enabled: boolean | null; at: string }> = {},
) => ({
  type: 'ConfigureWebhook' as const,
  organizationId: 'o1',
  url: 'https://example.com/hooks',
  secret,
  generatedSecret,
  enabled: null,
  at,
  ...over,
});
const configured = (
  over: Partial<{ url: string; secret: string; enabled: boolean; at: string }> = {},
): WebhookSettingsEvent => ({
  type: 'WebhookConfigured',
  data: { organizationId: 'o1', url: 'https://example.com/hooks', secret, enabled: true, at, ...over },
});

describe('webhook settings', () => {
  it('configures a webhook, enabled by default', () => spec.given([]).when(configure()).then([configured()]));

  it('generates the secret when none is given and none is set', () =>
    spec
      .given([])
      .when(configure({ secret: null }))
      .then([configured({ secret: generatedSecret })]));

  it('keeps the current secret and enabled flag when the request leaves them out', () =>
    spec
      .given([configured({ enabled: false })])
      .when(configure({ url: 'http://127.0.0.1:9000/in', secret: null, at: later }))
      .then([configured({ url: 'http://127.0.0.1:9000/in', enabled: false, at: later })]));

  it('records nothing when the settings do not change', () =>
    spec
      .given([configured()])
      .when(configure({ secret: null, enabled: true, at: later }))
      .then([]));

  it('rotates the secret and switches deliveries off when told', () =>
    spec
      .given([configured()])
      .when(configure({ secret: 'another-secret-0123456789', enabled: false, at: later }))
      .then([configured({ secret: 'another-secret-0123456789', enabled: false, at: later })]));

  it('refuses a URL that is not absolute http(s), and a short secret, naming each field', () => {
    spec
      .given([])
      .when(configure({ url: '/relative/path' }))
      .thenFails('invalid', 'Validation failed', { errors: ['url must be an absolute http or https URL'] });
    spec
      .given([])
      .when(configure({ url: 'ftp://example.com/x' }))
      .thenFails('invalid', 'Validation failed', { errors: ['url must be an absolute http or https URL'] });
    spec
      .given([])
      .when(configure({ url: 'example.com', secret: 'short' }))
      .thenFails('invalid', 'Validation failed', {
        errors: ['url must be an absolute http or https URL', 'secret must be at least 16 characters'],
      });
  });

  it('removes a configured webhook; removing none is not found', () => {
    spec
      .given([configured()])
      .when({ type: 'RemoveWebhook', organizationId: 'o1', at: later })
      .then([{ type: 'WebhookRemoved', data: { organizationId: 'o1', at: later } }]);
    spec
      .given([configured(), { type: 'WebhookRemoved', data: { organizationId: 'o1', at: later } }])
      .when({ type: 'RemoveWebhook', organizationId: 'o1', at: later })
      .thenFails('not_found', 'Webhook not configured');
  });

  it('a removed webhook configured again gets a new secret when none is given', () =>
    spec
      .given([configured(), { type: 'WebhookRemoved', data: { organizationId: 'o1', at } }])
      .when(configure({ secret: null, at: later }))
      .then([configured({ secret: generatedSecret, at: later })]));

  it('remembers since when deliveries are on (what ended earlier is not delivered)', () => {
    const fold = (events: WebhookSettingsEvent[]) =>
      events.reduce(webhookSettingsDecider.evolve, webhookSettingsDecider.initialState());
    expect(fold([configured()])).toMatchObject({ enabledSince: at });
    expect(fold([configured(), configured({ url: 'https://example.com/new', at: later })])).toMatchObject({
      enabledSince: at,
      createdAt: at,
      updatedAt: later,
    });
    expect(fold([configured(), configured({ enabled: false, at: later })])).toMatchObject({ enabledSince: null });
    const third = '2026-03-03T10:00:00.000Z';
    expect(fold([configured(), configured({ enabled: false, at: later }), configured({ at: third })])).toMatchObject({
      enabledSince: third,
    });
  });

  it('masks a secret to its last four characters', () => expect(maskSecret(secret)).toBe('********ters'));
});
