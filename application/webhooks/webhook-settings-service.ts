/**
 * The organization's webhook settings (`PUT`, `GET`, `DELETE /webhooks`). A secret is generated when
 * none is given and none is set; the full secret is shown only in the answer that set it.
 */
import { randomBytes } from 'node:crypto';
import { maskSecret, WEBHOOK_NOT_CONFIGURED, webhookSettingsDecider, webhookSettingsStreamId, type WebhookSettingsCommand } from '../../domain/webhooks/webhook-settings';
import { notFound } from '../../domain/shared/errors';
import type { WebhookSettingsDocument } from '../../projections/webhooks/webhook-settings';
import type { CommandHandler } from '../command-handler';
import type { ReadCollection } from '../ports/read-store';
import type { RequestContext, ServiceEnvironment } from '../request-context';

export type WebhookSettingsView = { url: string; enabled: boolean; secret: string; createdAt: string; updatedAt: string };
export type WebhookSettingsInput = { url: string; secret?: string; enabled?: boolean };

export const generateSecret = () => `whsec_${randomBytes(24).toString('base64url')}`;

export class WebhookSettingsService {
  constructor(
    private readonly commands: CommandHandler,
    private readonly settings: ReadCollection<WebhookSettingsDocument>,
    private readonly env: ServiceEnvironment,
    private readonly newSecret: () => string = generateSecret,
  ) {}

  /** Sets the webhook; the answer carries the full secret when this request set a new one. */
  async configure(ctx: RequestContext, input: WebhookSettingsInput): Promise<WebhookSettingsView> {
    const generatedSecret = this.newSecret();
    const command: WebhookSettingsCommand = { type: 'ConfigureWebhook', organizationId: ctx.organizationId, url: input.url.trim(), secret: input.secret ?? null, generatedSecret, enabled: input.enabled ?? null, at: this.env.now().toISOString() };
    const result = await this.execute(ctx, command);
    const { state } = await this.commands.load(webhookSettingsDecider, webhookSettingsStreamId(ctx.organizationId));
    if (state.status !== 'configured') throw notFound(WEBHOOK_NOT_CONFIGURED);
    const fresh = input.secret !== undefined || (result.events.length > 0 && state.secret === generatedSecret);
    return { url: state.url, enabled: state.enabled, secret: fresh ? state.secret : maskSecret(state.secret), createdAt: state.createdAt, updatedAt: state.updatedAt };
  }

  async get(ctx: RequestContext): Promise<WebhookSettingsView> {
    const doc = await this.settings.get(ctx.organizationId);
    if (!doc) throw notFound(WEBHOOK_NOT_CONFIGURED);
    return { url: doc.url, enabled: doc.enabled, secret: maskSecret(doc.secretLast4), createdAt: doc.createdAt, updatedAt: doc.updatedAt };
  }

  /** Stops deliveries: nothing more is scheduled, and pending deliveries are abandoned when they fall due. */
  async remove(ctx: RequestContext): Promise<void> {
    await this.execute(ctx, { type: 'RemoveWebhook', organizationId: ctx.organizationId, at: this.env.now().toISOString() });
  }

  private async execute(ctx: RequestContext, command: WebhookSettingsCommand) {
    const result = await this.commands.handle(webhookSettingsDecider, webhookSettingsStreamId(ctx.organizationId), command, { organizationId: ctx.organizationId, actor: ctx.actor, requestId: ctx.requestId });
    await this.env.readYourWrites(result.position);
    return result;
  }
}
