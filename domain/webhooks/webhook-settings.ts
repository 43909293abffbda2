/**
 * An organization's outbound webhook: the URL final call and chat log entries are POSTed to, the
 * secret they are signed with, and whether deliveries are on. One stream per organization.
 *
 * The secret lives here and nowhere else: deliveries do not copy it, the read model keeps only its
 * last characters, views of the events mask it (`webhookSettingsSecretFields`), and each attempt reads
 * the current secret from this stream to sign with (a rotated secret signs the next attempt); it is
 * never sent. Setting what is already set records nothing.
 */
import { assertNever, type Decider, type DomainEvent } from '../shared/decider';
import { invalid, notFound } from '../shared/errors';

export const webhookSettingsStreamId = (organizationId: string) => `webhookSettings-${organizationId}`;

export const WEBHOOK_NOT_CONFIGURED = 'Webhook not configured';
export const MIN_SECRET_LENGTH = 16;
export const MAX_SECRET_LENGTH = 256;
export const MAX_URL_LENGTH = 2048;

export type WebhookSettings = { url: string; secret: string; enabled: boolean };

export type WebhookSettingsState =
  | { status: 'none' }
  /** `enabledSince`: when deliveries were last switched on (null while off); calls and chats ending earlier are not delivered. */
  | ({
      status: 'configured';
      organizationId: string;
      createdAt: string;
      updatedAt: string;
      enabledSince: string | null;
    } & WebhookSettings);

export type WebhookSettingsCommand =
  | {
      type: 'ConfigureWebhook';
      organizationId: string;
      url: string;
      /** The secret the caller chose, or null to keep the current one (or use `generatedSecret` when there is none). */
      secret: string | null;
      generatedSecret: string;
      /** null keeps the current value (true for a new webhook). */
      enabled: boolean | null;
      at: string;
    }
  | { type: 'RemoveWebhook'; organizationId: string; at: string };

export type WebhookSettingsEvent =
  | { type: 'WebhookConfigured'; data: { organizationId: string; at: string } & WebhookSettings }
  | { type: 'WebhookRemoved'; data: { organizationId: string; at: string } };

export const webhookSettingsEventTypes = [
  'WebhookConfigured',
  'WebhookRemoved',
] as const satisfies readonly WebhookSettingsEvent['type'][];

/**
 * The data fields of each event type that hold a secret: no view of the history shows them (they are
 * masked as `maskSecret` does). Field names are checked against the event's data. A feature whose
 * events carry a credential declares its own beside its events.
 */
export type SecretFields<E extends DomainEvent> = {
  readonly [T in E['type']]?: readonly (keyof Extract<E, { type: T }>['data'] & string)[];
};

/** The signing secret: a receiver trusts whoever knows it, so it is shown once, to whoever set it. */
export const webhookSettingsSecretFields: SecretFields<WebhookSettingsEvent> = { WebhookConfigured: ['secret'] };

/** Why a URL cannot receive webhooks, or null: it must be an absolute http(s) URL. */
export function urlProblem(url: string): string | null {
  if (url.length > MAX_URL_LENGTH) return `url must be at most ${MAX_URL_LENGTH} characters`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'url must be an absolute http or https URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'url must be an absolute http or https URL';
  if (!parsed.hostname) return 'url must name a host';
  return null;
}

function secretProblem(secret: string): string | null {
  if (secret.length < MIN_SECRET_LENGTH) return `secret must be at least ${MIN_SECRET_LENGTH} characters`;
  if (secret.length > MAX_SECRET_LENGTH) return `secret must be at most ${MAX_SECRET_LENGTH} characters`;
  if (/\s/.test(secret)) return 'secret must not contain spaces';
  return null;
}

export function decide(command: WebhookSettingsCommand, state: WebhookSettingsState): WebhookSettingsEvent[] {
  switch (command.type) {
    case 'ConfigureWebhook': {
      const errors = [urlProblem(command.url), command.secret === null ? null : secretProblem(command.secret)].filter(
        (e): e is string => e !== null,
      );
      if (errors.length > 0) throw invalid('Validation failed', { errors });
      const current = state.status === 'configured' ? state : null;
      const settings: WebhookSettings = {
        url: command.url,
        secret: command.secret ?? current?.secret ?? command.generatedSecret,
        enabled: command.enabled ?? current?.enabled ?? true,
      };
      if (
        current &&
        current.url === settings.url &&
        current.secret === settings.secret &&
        current.enabled === settings.enabled
      )
        return [];
      return [
        { type: 'WebhookConfigured', data: { organizationId: command.organizationId, ...settings, at: command.at } },
      ];
    }
    case 'RemoveWebhook':
      if (state.status === 'none') throw notFound(WEBHOOK_NOT_CONFIGURED);
      return [{ type: 'WebhookRemoved', data: { organizationId: command.organizationId, at: command.at } }];
    default:
      return assertNever(command);
  }
}

export function evolve(state: WebhookSettingsState, event: WebhookSettingsEvent): WebhookSettingsState {
  switch (event.type) {
    case 'WebhookConfigured': {
      const { at, ...settings } = event.data;
      const current = state.status === 'configured' ? state : null;
      // Deliveries that stay on keep the time they were switched on.
      const onSince = current?.enabled ? current.enabledSince : at;
      const enabledSince = settings.enabled ? onSince : null;
      return { status: 'configured', ...settings, createdAt: current?.createdAt ?? at, updatedAt: at, enabledSince };
    }
    case 'WebhookRemoved':
      return { status: 'none' };
    default:
      return assertNever(event);
  }
}

export const webhookSettingsDecider: Decider<WebhookSettingsCommand, WebhookSettingsEvent, WebhookSettingsState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};

/** What the API shows of a secret (the settings read, every view of the events): its last four characters. */
export const maskSecret = (secret: string) => `********${secret.slice(-4)}`;
