/**
 * The organization's webhook settings (`PUT`, `GET`, `DELETE /webhooks`). A secret is generated when
 * none is given and none is set; the full secret is shown only in the answer that set it.
 *
 * Unless private networks are allowed, a URL naming localhost or a private literal IP is refused here,
 * early and clearly (SSRF). Host names are not resolved here: what a name resolves to can change, so
 * each delivery checks the address it connects to. Unless private networks are allowed, the URL must
 * also be https: a delivery carries customer data and a signature anyone on the path could replay.
 * (Allowing private networks is for development and closed networks, where plain http is common.)
 */
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import {
  maskSecret,
  urlProblem,
  WEBHOOK_NOT_CONFIGURED,
  webhookSettingsDecider,
  webhookSettingsStreamId,
  type WebhookSettingsCommand,
} from '../../domain/webhooks/webhook-settings';
import { invalid, notFound } from '../../domain/shared/errors';
import type { WebhookSettingsDocument } from '../../projections/webhooks/webhook-settings';
import type { CommandHandler } from '../command-handler';
import type { ReadCollection } from '../ports/read-store';
import type { RequestContext, ServiceEnvironment } from '../request-context';

export type WebhookSettingsView = {
  url: string;
  enabled: boolean;
  secret: string;
  createdAt: string;
  updatedAt: string;
};
export type WebhookSettingsInput = { url: string; secret?: string; enabled?: boolean };

/** Where webhooks may point: `isPrivateAddress` judges an IP address (infrastructure's deny list). */
export type DestinationPolicy = { allowPrivateNetworks: boolean; isPrivateAddress: (address: string) => boolean };

export const PRIVATE_URL = 'url must not point to a private or loopback address';
export const HTTPS_ONLY = 'url must use https (http only with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true)';

export const generateSecret = () => `whsec_${randomBytes(24).toString('base64url')}`;

export class WebhookSettingsService {
  constructor(
    private readonly commands: CommandHandler,
    private readonly settings: ReadCollection<WebhookSettingsDocument>,
    private readonly env: ServiceEnvironment,
    private readonly destinations: DestinationPolicy,
    private readonly newSecret: () => string = generateSecret,
  ) {}

  /** Sets the webhook; the answer carries the full secret when this request set a new one. */
  async configure(ctx: RequestContext, input: WebhookSettingsInput): Promise<WebhookSettingsView> {
    const url = input.url.trim();
    if (this.pointsInside(url)) throw invalid('Validation failed', { errors: [PRIVATE_URL] });
    if (this.plainText(url)) throw invalid('Validation failed', { errors: [HTTPS_ONLY] });
    const generatedSecret = this.newSecret();
    const command: WebhookSettingsCommand = {
      type: 'ConfigureWebhook',
      organizationId: ctx.organizationId,
      url,
      secret: input.secret ?? null,
      generatedSecret,
      enabled: input.enabled ?? null,
      at: this.env.now().toISOString(),
    };
    const result = await this.execute(ctx, command);
    const { state } = await this.commands.load(webhookSettingsDecider, webhookSettingsStreamId(ctx.organizationId));
    if (state.status !== 'configured') throw notFound(WEBHOOK_NOT_CONFIGURED);
    const fresh = input.secret !== undefined || (result.events.length > 0 && state.secret === generatedSecret);
    return {
      url: state.url,
      enabled: state.enabled,
      secret: fresh ? state.secret : maskSecret(state.secret),
      createdAt: state.createdAt,
      updatedAt: state.updatedAt,
    };
  }

  async get(ctx: RequestContext): Promise<WebhookSettingsView> {
    const doc = await this.settings.get(ctx.organizationId);
    if (!doc) throw notFound(WEBHOOK_NOT_CONFIGURED);
    return {
      url: doc.url,
      enabled: doc.enabled,
      secret: maskSecret(doc.secretLast4),
      createdAt: doc.createdAt,
      updatedAt: doc.updatedAt,
    };
  }

  /** Stops deliveries: nothing more is scheduled, and pending deliveries are abandoned when they fall due. */
  async remove(ctx: RequestContext): Promise<void> {
    await this.execute(ctx, {
      type: 'RemoveWebhook',
      organizationId: ctx.organizationId,
      at: this.env.now().toISOString(),
    });
  }

  /** A well-formed http: URL where only https is taken (a malformed one is the decider's to refuse). */
  private plainText(url: string): boolean {
    if (this.destinations.allowPrivateNetworks || urlProblem(url) !== null) return false;
    return new URL(url).protocol !== 'https:';
  }

  /** A well-formed URL whose host is localhost or a private literal IP (a malformed one is the decider's to refuse). */
  private pointsInside(url: string): boolean {
    if (this.destinations.allowPrivateNetworks || urlProblem(url) !== null) return false;
    const host = new URL(url).hostname.replace(/\.$/, '');
    if (host === 'localhost' || host.endsWith('.localhost')) return true;
    const literal = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
    return isIP(literal) !== 0 && this.destinations.isPrivateAddress(literal);
  }

  private async execute(ctx: RequestContext, command: WebhookSettingsCommand) {
    const result = await this.commands.handle(
      webhookSettingsDecider,
      webhookSettingsStreamId(ctx.organizationId),
      command,
      { organizationId: ctx.organizationId, actor: ctx.actor, requestId: ctx.requestId },
    );
    await this.env.readYourWrites(result.position);
    return result;
  }
}
