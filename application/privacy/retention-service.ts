/**
 * An organization's retention of conversation content (docs/privacy.md, "Retention"): how many days
 * after their end the transcripts, summaries, extracted data, chat messages and recordings of its
 * calls and chats are kept (null: for ever, the default). Recorded on the organization's privacy
 * stream; the retention sweep (retention-sweep.ts) erases what outlived it.
 */
import { privacyDecider, privacyStreamId } from '../../domain/privacy/erasure';
import type { RetentionSettingDocument } from '../../projections/privacy/retention-settings';
import type { CommandHandler } from '../command-handler';
import type { ReadCollection } from '../ports/read-store';
import type { RequestContext, ServiceEnvironment } from '../request-context';

/** `days` null: content is kept for ever. */
export type RetentionAnswer = { days: number | null };

export class RetentionService {
  constructor(
    private readonly deps: {
      commands: CommandHandler;
      env: ServiceEnvironment;
      settings: ReadCollection<RetentionSettingDocument>;
    },
  ) {}

  async get(ctx: RequestContext): Promise<RetentionAnswer> {
    const doc = await this.deps.settings.get(ctx.organizationId);
    return { days: doc?.days ?? null };
  }

  async set(ctx: RequestContext, days: number | null): Promise<RetentionAnswer> {
    const { commands, env } = this.deps;
    const result = await commands.handle(
      privacyDecider,
      privacyStreamId(ctx.organizationId),
      { type: 'SetRetention', organizationId: ctx.organizationId, days, at: env.now().toISOString() },
      { organizationId: ctx.organizationId, actor: ctx.actor, requestId: ctx.requestId },
    );
    await env.readYourWrites(result.position);
    return this.get(ctx);
  }
}
