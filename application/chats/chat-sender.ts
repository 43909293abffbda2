/**
 * Sends chat templates to customers of a campaign (initiate-chat, workflows): one `ChatRequested`
 * event per message on its own stream; the chat dispatcher hands each to the chat platform. A
 * blacklisted customer is never messaged (decisions.md 6). A caller-chosen `messageId` that already
 * exists sends nothing more (a repeated workflow step).
 *
 * Built for thousands of customers per request: the template and the organization's blacklist are
 * read once, every append is handed to the command handler at once (in slices, so the event store's
 * writer commits one slice while the next is prepared). The answer comes once the events are durable;
 * it does not wait for the logs to show them: every later request does (api/http/consistent-reads).
 */
import { fillTemplate } from '../../domain/shared/placeholders';
import { chatDecider } from '../../domain/chats/chat';
import { TEMPLATE_NOT_FOUND } from '../../domain/chats/template';
import { DomainError } from '../../domain/shared/errors';
import type { ChatTemplateDocument } from '../../projections/chats/chat-templates';
import {
  AGENT_NOT_FOUND_FOR_CALL,
  BLACKLISTED,
  DISPOSITION_NOT_FOUND_FOR_CALL,
  type PlacementFailure,
} from '../calls/call-placer';
import type { CommandHandler, CommandResult } from '../command-handler';
import { handedOver, sliceBoundary } from '../append-slices';
import { originId } from '../derived-id';
import type { RequestContext, ServiceEnvironment } from '../request-context';
import {
  chatStreamId,
  type ChatCandidate,
  type ChatConfig,
  type ChatPlacement,
  type ChatSending,
} from './chat-sending';

export type ChatLookups = {
  template: (organizationId: string, templateId: string) => Promise<ChatTemplateDocument | null>;
  agentExists: (organizationId: string, agentId: string) => Promise<boolean>;
  dispositionsOf: (organizationId: string, dispositionId: string) => Promise<{ id: string; name: string }[]>;
  /** The organization's blacklist as it is now, read once: whether a number is on it. */
  blacklist: (organizationId: string) => Promise<(phone: string) => boolean>;
};

type Refusal = { error: string; reason: string };

export class ChatSender implements ChatSending {
  constructor(
    private readonly commands: CommandHandler,
    private readonly lookups: ChatLookups,
    private readonly env: ServiceEnvironment,
  ) {}

  async refusal(organizationId: string, config: ChatConfig): Promise<Refusal | null> {
    const checked = await this.check(organizationId, config);
    return 'error' in checked ? checked : null;
  }

  private async check(
    organizationId: string,
    config: ChatConfig,
  ): Promise<Refusal | { template: ChatTemplateDocument }> {
    const settings = config.conversationSettings;
    const [template, agent, dispositions] = await Promise.all([
      this.lookups.template(organizationId, config.templateId),
      settings ? this.lookups.agentExists(organizationId, settings.agentId) : true,
      settings ? this.lookups.dispositionsOf(organizationId, settings.dispositionId) : [{ id: '', name: '' }],
    ]);
    if (!template) return { error: TEMPLATE_NOT_FOUND, reason: 'template_not_found' };
    if (!agent) return { error: AGENT_NOT_FOUND_FOR_CALL, reason: 'agent_not_found' };
    if (dispositions.length === 0) return { error: DISPOSITION_NOT_FOUND_FOR_CALL, reason: 'disposition_not_found' };
    return { template };
  }

  async send(ctx: RequestContext, config: ChatConfig, candidates: readonly ChatCandidate[]): Promise<ChatPlacement> {
    const checked = await this.check(ctx.organizationId, config);
    if ('error' in checked)
      return { initiated: [], failed: candidates.map((c) => ({ customerKey: c.customerKey, ...checked })) };
    const { template } = checked;
    const blacklisted = await this.lookups.blacklist(ctx.organizationId);
    const at = this.env.now().toISOString();
    const context = { organizationId: ctx.organizationId, actor: ctx.actor, requestId: ctx.requestId };
    const settings = config.conversationSettings;

    const failed: PlacementFailure[] = [];
    const requested: {
      customerKey: string;
      messageId: string;
      result: Promise<PromiseSettledResult<CommandResult<unknown>>>;
    }[] = [];
    for (const c of candidates) {
      if (blacklisted(c.phone)) {
        failed.push({ customerKey: c.customerKey, error: BLACKLISTED, reason: 'blacklisted' });
        continue;
      }
      const messageId = c.messageId ?? originId(ctx, 'chat', c.campaignId, c.customerKey) ?? this.env.newId();
      const command = {
        type: 'RequestChat' as const,
        messageId,
        at,
        organizationId: ctx.organizationId,
        campaignId: c.campaignId,
        campaignName: c.campaignName,
        customerKeyField: c.customerKeyField,
        customerKey: c.customerKey,
        customerName: c.customerName,
        to: c.phone,
        templateId: template.id,
        content: fillTemplate(template.body, c.record),
        language: template.language,
        agentId: settings?.agentId ?? null,
        dispositionId: settings?.dispositionId ?? null,
      };
      requested.push({
        customerKey: c.customerKey,
        messageId,
        result: handedOver(this.commands.handle(chatDecider, chatStreamId(messageId), command, context)),
      });
      await sliceBoundary(requested.length);
    }

    const outcomes = await Promise.all(requested.map((r) => r.result));
    const initiated: ChatPlacement['initiated'] = [];
    outcomes.forEach((outcome, i) => {
      const { customerKey, messageId } = requested[i]!;
      if (outcome.status === 'fulfilled') return void initiated.push({ customerKey, messageId });
      const known = outcome.reason instanceof DomainError;
      failed.push({
        customerKey,
        error: known ? outcome.reason.message : 'An unexpected error occurred',
        reason: known && outcome.reason.kind === 'conflict' ? 'already_exists' : 'internal_error',
      });
    });
    return { initiated, failed };
  }
}
