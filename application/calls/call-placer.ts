/**
 * Queues calls for customers of a campaign (after a customer add with `initiateCall`, or the
 * initiate-calls endpoint). A call needs the organization's agent, a disposition (or disposition
 * group) to choose outcomes from, and a voice-enabled number of the organization to call from; a
 * blacklisted customer is never dialed. Each queued call is a `CallQueued` event on its own stream;
 * the call dispatcher hands it to the carrier.
 */
import { callDecider, callStreamId } from '../../domain/calls/call';
import { languageKey } from '../../domain/customers/keys';
import type { CommandContext, CommandHandler } from '../command-handler';
import { handedOver, sliceBoundary } from '../append-slices';
import { originId } from '../derived-id';
import { customerContact, type CampaignScope, type CustomerContact } from '../customers/customer-contact';
import type { RequestContext, ServiceEnvironment } from '../request-context';

export type CallConfig = { agentId: string; dispositionId: string };

export type CallCandidate = CustomerContact & {
  /** Language code for the call when the record names none. */
  language: string;
  /** The call's id, when the caller chooses it: placing a call whose id is already queued places nothing more. */
  callId?: string;
};

export type PlacementLookups = {
  agentExists: (organizationId: string, agentId: string) => Promise<boolean>;
  /** The dispositions a configuration id stands for: a group's members, or that one disposition; [] when unknown. */
  dispositionsOf: (organizationId: string, dispositionId: string) => Promise<{ id: string; name: string }[]>;
  voiceNumbers: (organizationId: string) => Promise<string[]>;
  /** The organization's blacklist, read once per placement: whether a number is on it. */
  blacklist: (organizationId: string) => Promise<(phone: string) => boolean>;
};

export type PlacementFailure = { customerKey: string; error: string; reason: string };
export type Placement = { initiated: { customerKey: string; callId: string }[]; failed: PlacementFailure[] };

/** A batch's failures in the answer's shape (spec 4.10/4.11): one entry per reason, with how many it hit. */
export type BatchError = { batch: number; error: string; reason: string; affectedCustomers: number };

export function batchErrors(batch: number, placement: { failed: readonly PlacementFailure[] }): BatchError[] {
  const byReason = new Map<string, { error: string; count: number }>();
  for (const f of placement.failed)
    byReason.set(f.reason, { error: f.error, count: (byReason.get(f.reason)?.count ?? 0) + 1 });
  return [...byReason].map(([reason, { error, count }]) => ({ batch, error, reason, affectedCustomers: count }));
}

/**
 * The failures of a placement over many customers, reported per batch of `size` in the order the
 * customers were given (spec 4.10/4.11: calls and chats go out in batches of 500).
 */
export function errorsByBatch(
  keys: readonly string[],
  failed: readonly PlacementFailure[],
  size: number,
): BatchError[] {
  const batchOf = new Map(keys.map((key, i) => [key, Math.floor(i / size)]));
  const failedByBatch: PlacementFailure[][] = Array.from({ length: Math.ceil(keys.length / size) }, () => []);
  for (const f of failed) failedByBatch[batchOf.get(f.customerKey) ?? 0]!.push(f);
  return failedByBatch.flatMap((batch, i) => batchErrors(i + 1, { failed: batch }));
}

/** A customer record as the placer needs it; the call's language is the record's, or English. */
export function callCandidate(
  campaign: CampaignScope,
  customerKey: string,
  record: Record<string, unknown>,
): CallCandidate {
  const language = languageKey(record.language);
  return {
    ...customerContact(campaign, customerKey, record),
    language: language && language.length === 2 ? language : 'en',
  };
}

export const AGENT_NOT_FOUND_FOR_CALL = 'Agent not found';
export const DISPOSITION_NOT_FOUND_FOR_CALL = 'Disposition not found';
export const NO_ACTIVE_NUMBERS = 'No active numbers';
export const BLACKLISTED = 'Number is blacklisted';

export class CallPlacer {
  constructor(
    private readonly commands: CommandHandler,
    private readonly lookups: PlacementLookups,
    private readonly env: ServiceEnvironment,
  ) {}

  /** Why no call of this configuration can be placed for the organization, or null when they can. */
  async refusal(organizationId: string, config: CallConfig): Promise<{ error: string; reason: string } | null> {
    const [agent, dispositions, numbers] = await Promise.all([
      this.lookups.agentExists(organizationId, config.agentId),
      this.lookups.dispositionsOf(organizationId, config.dispositionId),
      this.lookups.voiceNumbers(organizationId),
    ]);
    if (!agent) return { error: AGENT_NOT_FOUND_FOR_CALL, reason: 'agent_not_found' };
    if (dispositions.length === 0) return { error: DISPOSITION_NOT_FOUND_FOR_CALL, reason: 'disposition_not_found' };
    if (numbers.length === 0) return { error: NO_ACTIVE_NUMBERS, reason: 'no_active_numbers' };
    return null;
  }

  async place(ctx: RequestContext, config: CallConfig, candidates: readonly CallCandidate[]): Promise<Placement> {
    const refused = await this.refusal(ctx.organizationId, config);
    if (refused) return { initiated: [], failed: candidates.map((c) => ({ customerKey: c.customerKey, ...refused })) };
    const [numbers, blacklisted] = await Promise.all([
      this.lookups.voiceNumbers(ctx.organizationId),
      this.lookups.blacklist(ctx.organizationId),
    ]);
    const at = this.env.now().toISOString();
    const context = { organizationId: ctx.organizationId, actor: ctx.actor, requestId: ctx.requestId };
    const placement: Placement = { initiated: [], failed: [] };
    const placing: Promise<PromiseSettledResult<void>>[] = [];
    for (const [i, c] of candidates.entries()) {
      if (blacklisted(c.phone)) {
        placement.failed.push({ customerKey: c.customerKey, error: BLACKLISTED, reason: 'blacklisted' });
        continue;
      }
      // A request run again after a crash (its Idempotency-Key's origin) reaches the calls its first run queued.
      const callId = c.callId ?? originId(ctx, 'call', c.campaignId, c.customerKey);
      placing.push(
        handedOver(
          this.placeOne({ ...c, callId }, numbers[i % numbers.length]!, config, at, context).then(
            (placed) => void placement.initiated.push({ customerKey: c.customerKey, callId: placed }),
          ),
        ),
      );
      await sliceBoundary(placing.length);
    }
    // A call that could not be queued (the store failing) fails the placement, as it always did.
    const failure = (await Promise.all(placing)).find((o) => o.status === 'rejected');
    if (failure) throw failure.reason;
    return placement;
  }

  private async placeOne(
    c: CallCandidate,
    from: string,
    config: CallConfig,
    at: string,
    context: CommandContext,
  ): Promise<string> {
    const callId = c.callId ?? this.env.newId();
    const { campaignId, campaignName, customerKeyField, customerKey, customerName, language } = c;
    const stream = callStreamId(callId);
    // A caller-chosen id that is already queued is the same call asked for again (a repeated workflow step).
    if (c.callId !== undefined && (await this.commands.load(callDecider, stream)).state.status !== 'none')
      return callId;
    const organizationId = context.organizationId!;
    await this.commands.handle(
      callDecider,
      stream,
      {
        type: 'RequestCall',
        callId,
        at,
        organizationId,
        campaignId,
        campaignName,
        customerKeyField,
        customerKey,
        customerName,
        to: c.phone,
        from,
        agentId: config.agentId,
        dispositionId: config.dispositionId,
        language,
      },
      context,
    );
    return callId;
  }
}
