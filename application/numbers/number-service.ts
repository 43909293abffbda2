/**
 * Number use cases: the built-in provider's seed, stocking the inventory (admin), searching what is
 * available (spec 4.8), buying, importing the numbers an organization holds at a real provider, and
 * an organization's own numbers.
 *
 * Availability is decided on each number's stream, never on the read model: a purchase is appended
 * with the revision the buyer read, so a number has one owner however many buy it at once. The
 * inventory stream of the provider only says which numbers it offers.
 */
import { BUILTIN_PROVIDER, builtinInventory } from '../../domain/numbers/builtin-inventory';
import { inventoryDecider, inventoryStreamId, type StockedNumber } from '../../domain/numbers/inventory';
import {
  NUMBER_NOT_FOUND,
  phoneNumberDecider,
  phoneNumberStreamId,
  type InboundRouting,
  type PhoneNumberCommand,
} from '../../domain/numbers/owned-number';
import { DomainError, notFound } from '../../domain/shared/errors';
import { countryOf, isE164 } from '../../domain/numbers/phone-number';
import type { NumberDocument } from '../../projections/numbers/numbers';
import type { CommandContext, CommandHandler } from '../command-handler';
import { findPage, type Pagination } from '../pagination';
import type { Query, ReadCollection } from '../ports/read-store';
import type { ControlProof } from '../providers/provider-control';
import type { RequestContext, ServiceEnvironment } from '../request-context';

export type AvailableNumber = { number: string; sms_enabled: boolean; voice_enabled: boolean };
export type OwnedNumberView = {
  number: string;
  provider: string;
  country_iso: string;
  sms_enabled: boolean;
  voice_enabled: boolean;
  purchasedAt: string;
  /** Who answers its inbound calls and chats (docs/inbound.md), null when nobody does: they are refused. */
  inbound: InboundRouting | null;
  /** Present (true) for a number imported from the organization's account at its provider. */
  imported?: true;
};
/** What the inbound routing's ids are checked against: the organization's agents and dispositions. */
export type RoutingLookups = {
  agentExists: (organizationId: string, agentId: string) => Promise<boolean>;
  /** The dispositions an id stands for (a group's members, or that one disposition); [] when unknown. */
  dispositionsOf: (organizationId: string, dispositionId: string) => Promise<{ id: string; name: string }[]>;
};
export type SearchQuery = { provider: string; country_iso: string; limit: number; page: number; prefix?: string };
export type SearchAnswer = {
  success: true;
  status: 200;
  data: AvailableNumber[];
  page: number;
  totalPages: number;
  totalCount: number;
  message: string;
};
export type PurchaseResult = { number: string; success: boolean; error: string | null };
/** A number the organization holds at a real provider, to own here with that provider. */
export type ImportItem = { number: string; provider: string; voice_enabled: boolean; sms_enabled: boolean };
/**
 * What the organization's account at a provider says of a number (api/providers): null when it
 * connected no account there, else whether the provider shows the account holding the number. A
 * provider that cannot be asked throws ProviderUnavailableError.
 */
export type ProviderHoldings = {
  holding: (organizationId: string, provider: string, number: string) => Promise<ControlProof | null>;
};
export type InventoryItem = StockedNumber & { provider: string };

/** The longest national part a number can have (E.164: 15 digits, country code included). */
const NATIONAL_MAX_DIGITS = 15;

export const INVALID_NUMBER = 'Invalid number: use the E.164 form, for example +919876543210';
export const UNKNOWN_COUNTRY = 'Number of a country the service does not know';
export const noNumbersMessage = (provider: string) => `No available numbers found for provider ${provider}`;

export class NumberService {
  constructor(
    private readonly commands: CommandHandler,
    private readonly numbers: ReadCollection<NumberDocument>,
    private readonly env: ServiceEnvironment,
    private readonly routing?: RoutingLookups,
    private readonly holdings?: ProviderHoldings,
  ) {}

  /**
   * Records the built-in provider's numbers once. Every replica calls it at start-up: the first
   * append expects no stream, so replicas starting together record the seed once, and a restart
   * costs one read of the inventory stream.
   */
  async seedBuiltinInventory(): Promise<void> {
    const context: CommandContext = { organizationId: null, actor: 'system', requestId: 'seed-builtin-inventory' };
    const result = await this.commands.handle(
      inventoryDecider,
      inventoryStreamId(BUILTIN_PROVIDER),
      {
        type: 'SeedInventory',
        provider: BUILTIN_PROVIDER,
        numbers: builtinInventory(),
        at: this.env.now().toISOString(),
      },
      context,
    );
    await this.env.readYourWrites(result.position);
  }

  /** Adds numbers to providers' inventories; numbers already known (in any inventory, or owned) are skipped. */
  async stock(context: CommandContext, items: readonly InventoryItem[]): Promise<{ added: number }> {
    // A number's document id is the number: read by id, not by a field no index holds.
    const stored = await this.numbers.getStored(items.map((i) => i.number));
    const known = new Set([...stored.values()].filter((s) => s.doc !== null).map((s) => s.id));
    const byProvider = new Map<string, StockedNumber[]>();
    for (const { provider, ...number } of items) {
      if (known.has(number.number)) continue;
      const list = byProvider.get(provider) ?? byProvider.set(provider, []).get(provider)!;
      list.push(number);
    }
    let added = 0;
    let position = -1;
    const at = this.env.now().toISOString();
    for (const [provider, numbers] of byProvider) {
      const result = await this.commands.handle(
        inventoryDecider,
        inventoryStreamId(provider),
        { type: 'StockNumbers', provider, numbers, at },
        context,
      );
      for (const event of result.events) added += event.data.numbers.length;
      position = Math.max(position, result.position);
    }
    await this.env.readYourWrites(position);
    return { added };
  }

  /** Available numbers of a provider and country; `prefix` matches the start of the national part. */
  async search(query: SearchQuery): Promise<SearchAnswer> {
    const filter: Query = {
      where: { provider: query.provider, country_iso: query.country_iso, status: 'available' },
      // Digits compare as text: the numbers starting with the prefix lie between it and it padded with nines.
      ...(query.prefix && {
        range: { field: 'national', gte: query.prefix, lte: query.prefix.padEnd(NATIONAL_MAX_DIGITS, '9') },
      }),
    };
    const { docs, pagination } = await findPage(this.numbers, filter, query, { field: 'number', order: 'asc' });
    // Shaped as the search answer: the envelope of spec 7.1 with the `status` field of 4.8.
    if (pagination.total === 0) throw new DomainError('not_found', noNumbersMessage(query.provider), { status: 404 });
    return {
      success: true,
      status: 200,
      data: docs.map((d) => ({ number: d.number, sms_enabled: d.sms_enabled, voice_enabled: d.voice_enabled })),
      page: pagination.page,
      totalPages: pagination.total_pages,
      totalCount: pagination.total,
      message: 'Available numbers retrieved successfully',
    };
  }

  /**
   * Buys each number for the caller's organization; each succeeds or fails on its own. A stocked
   * number another organization imported without its own account holding it is bought from it.
   */
  async buy(
    ctx: RequestContext,
    items: readonly { number: string; provider: string }[],
  ): Promise<{ success: boolean; data: PurchaseResult[] }> {
    const context: CommandContext = { organizationId: ctx.organizationId, actor: ctx.actor, requestId: ctx.requestId };
    const at = this.env.now().toISOString();
    const seen = new Set<string>();
    // Each provider's inventory is read once per request.
    const inventories = new Map<string, ReturnType<typeof this.inventoryOf>>();
    const inventory = (provider: string) =>
      inventories.get(provider) ?? inventories.set(provider, this.inventoryOf(provider)).get(provider)!;
    const outcomes = await Promise.all(
      items.map(async ({ number, provider }): Promise<{ result: PurchaseResult; position: number }> => {
        if (seen.has(number))
          return { result: { number, success: false, error: 'Duplicate number in this request' }, position: -1 };
        seen.add(number);
        if (!isE164(number)) return { result: { number, success: false, error: INVALID_NUMBER }, position: -1 };
        try {
          const stocked = (await inventory(provider)).get(number) ?? null;
          // Only a stocked number is bought; an importer stands in the way of nothing else.
          const displacing = stocked && (await this.importerWithoutHold(ctx.organizationId, number));
          const bought = await this.commands.handle(
            phoneNumberDecider,
            phoneNumberStreamId(number),
            {
              type: 'BuyNumber',
              provider,
              number,
              stocked,
              organizationId: ctx.organizationId,
              at,
              ...(ctx.origin !== undefined && { origin: ctx.origin }),
              ...(displacing && { displacing }),
            },
            context,
          );
          return { result: { number, success: true, error: null }, position: bought.position };
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          return { result: { number, success: false, error: error.message }, position: -1 };
        }
      }),
    );
    await this.env.readYourWrites(Math.max(-1, ...outcomes.map((o) => o.position)));
    const data = outcomes.map((o) => o.result);
    return { success: data.every((r) => r.success), data };
  }

  /**
   * Imports numbers the caller's organization holds at a real provider: each is owned with its
   * provider, as a bought one is, when the organization connected that provider, the provider shows
   * its account holding the number, no inventory here offers it and nobody owns it here; each
   * succeeds or fails on its own. A number another organization imported without its own account
   * holding it is taken from that organization. The provider is asked about every number before
   * anything is recorded, so a provider that cannot be asked fails the request whole
   * (ProviderUnavailableError) with nothing imported. A request run again (same `Idempotency-Key`)
   * finds its numbers imported and records nothing more.
   */
  async import(
    ctx: RequestContext,
    items: readonly ImportItem[],
  ): Promise<{ success: boolean; data: PurchaseResult[] }> {
    if (!this.holdings) throw new Error('the number service was built without provider holdings');
    const holdings = this.holdings;
    const context: CommandContext = { organizationId: ctx.organizationId, actor: ctx.actor, requestId: ctx.requestId };
    const at = this.env.now().toISOString();
    const seen = new Set<string>();
    const prepared = await Promise.all(
      items.map(async (item): Promise<PhoneNumberCommand | string> => {
        const { number, provider } = item;
        if (seen.has(number)) return 'Duplicate number in this request';
        seen.add(number);
        if (!isE164(number)) return INVALID_NUMBER;
        const country = countryOf(number);
        if (country === null) return UNKNOWN_COUNTRY;
        const doc = await this.numbers.get(number);
        const stockedBy = doc?.status === 'available' ? doc.provider : null;
        // A stocked number is refused without asking the provider about it.
        const proof = stockedBy === null ? await holdings.holding(ctx.organizationId, provider, number) : null;
        const displacing = proof?.shown ? await this.importerWithoutHold(ctx.organizationId, number) : null;
        return {
          type: 'ImportNumber',
          provider,
          number,
          country_iso: country,
          sms_enabled: item.sms_enabled,
          voice_enabled: item.voice_enabled,
          organizationId: ctx.organizationId,
          providerConnected: proof !== null,
          refusal: proof === null || proof.shown ? null : proof.refusal,
          stockedBy,
          at,
          ...(ctx.origin !== undefined && { origin: ctx.origin }),
          ...(displacing && { displacing }),
        };
      }),
    );
    const outcomes = await Promise.all(
      prepared.map(async (command, i): Promise<{ result: PurchaseResult; position: number }> => {
        const number = items[i]!.number;
        const failed = (error: string) => ({ result: { number, success: false, error }, position: -1 });
        if (typeof command === 'string') return failed(command);
        try {
          const imported = await this.commands.handle(
            phoneNumberDecider,
            phoneNumberStreamId(number),
            command,
            context,
          );
          return { result: { number, success: true, error: null }, position: imported.position };
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          return failed(error.message);
        }
      }),
    );
    await this.env.readYourWrites(Math.max(-1, ...outcomes.map((o) => o.position)));
    const data = outcomes.map((o) => o.result);
    return { success: data.every((r) => r.success), data };
  }

  /**
   * The organization that imported `number`, when another than the caller did and the provider does
   * not show that importer's own account holding it (or it connected none): the caller may take the
   * number from it (domain/numbers/owned-number.ts). Null otherwise.
   */
  private async importerWithoutHold(organizationId: string, number: string): Promise<string | null> {
    const doc = await this.numbers.get(number);
    if (!this.holdings || doc?.status !== 'owned' || !doc.imported || !doc.organizationId) return null;
    if (doc.organizationId === organizationId) return null;
    const proof = await this.holdings.holding(doc.organizationId, doc.provider, number);
    return proof === null || !proof.shown ? doc.organizationId : null;
  }

  /**
   * Releases one of the caller's numbers (404 when it owns no such number): a bought one is offered
   * again by its provider, an imported one leaves the service. Its inbound routing goes with it.
   */
  async release(ctx: RequestContext, number: string): Promise<void> {
    if (!isE164(number)) throw notFound(NUMBER_NOT_FOUND);
    const context: CommandContext = { organizationId: ctx.organizationId, actor: ctx.actor, requestId: ctx.requestId };
    const result = await this.commands.handle(
      phoneNumberDecider,
      phoneNumberStreamId(number),
      { type: 'ReleaseNumber', organizationId: ctx.organizationId, at: this.env.now().toISOString() },
      context,
    );
    await this.env.readYourWrites(result.position);
  }

  /**
   * The provider of one of the organization's numbers (`builtin`, `twilio`...): the calls placed from
   * it are dialed through that provider. Null when the organization does not own it.
   */
  async providerOf(organizationId: string, number: string): Promise<string | null> {
    const doc = await this.numbers.get(number);
    return doc && doc.status === 'owned' && doc.organizationId === organizationId ? doc.provider : null;
  }

  private async inventoryOf(provider: string): Promise<ReadonlyMap<string, StockedNumber>> {
    return (await this.commands.load(inventoryDecider, inventoryStreamId(provider))).state.numbers;
  }

  /** The caller's numbers, newest purchase first. */
  async owned(
    ctx: RequestContext,
    query: { page: number; limit: number },
  ): Promise<{ data: OwnedNumberView[]; pagination: Pagination }> {
    const { docs, pagination } = await findPage(
      this.numbers,
      { where: { organizationId: ctx.organizationId } },
      query,
      { field: 'purchasedAt', order: 'desc' },
    );
    return { data: docs.map(ownedView), pagination };
  }

  /** One of the caller's numbers; another organization's, or nobody's, is not found (404). */
  async ownedOne(ctx: RequestContext, number: string): Promise<OwnedNumberView> {
    const doc = await this.numbers.get(number);
    if (!doc || doc.status !== 'owned' || doc.organizationId !== ctx.organizationId) throw notFound(NUMBER_NOT_FOUND);
    return ownedView(doc);
  }

  /**
   * Gives one of the caller's numbers an inbound agent and disposition (or group): its inbound calls
   * and chats are taken from then on (docs/inbound.md). Answers the number as it then is.
   */
  async setInbound(ctx: RequestContext, number: string, routing: InboundRouting): Promise<OwnedNumberView> {
    if (!this.routing) throw new Error('the number service was built without routing lookups');
    const [agentKnown, dispositions] = await Promise.all([
      this.routing.agentExists(ctx.organizationId, routing.agentId),
      this.routing.dispositionsOf(ctx.organizationId, routing.dispositionId),
    ]);
    return this.route(ctx, number, {
      type: 'SetInboundRouting',
      organizationId: ctx.organizationId,
      at: this.env.now().toISOString(),
      ...routing,
      agentKnown,
      dispositionKnown: dispositions.length > 0,
    });
  }

  /** Takes a number's inbound routing away: its inbound calls and chats are refused from then on. */
  async clearInbound(ctx: RequestContext, number: string): Promise<OwnedNumberView> {
    return this.route(ctx, number, {
      type: 'ClearInboundRouting',
      organizationId: ctx.organizationId,
      at: this.env.now().toISOString(),
    });
  }

  private async route(ctx: RequestContext, number: string, command: PhoneNumberCommand): Promise<OwnedNumberView> {
    // The number must be one (E.164) before it names a stream: anything else is nobody's number.
    if (!isE164(number)) throw notFound(NUMBER_NOT_FOUND);
    const context: CommandContext = { organizationId: ctx.organizationId, actor: ctx.actor, requestId: ctx.requestId };
    const result = await this.commands.handle(phoneNumberDecider, phoneNumberStreamId(number), command, context);
    await this.env.readYourWrites(result.position);
    return this.ownedOne(ctx, number);
  }

  /**
   * The organization's voice-enabled numbers, oldest purchase first: the numbers a call may be placed
   * from (`from`). Empty when it has none, in which case a call cannot be placed (decisions.md section 6).
   */
  async voiceNumbersOf(organizationId: string): Promise<OwnedNumberView[]> {
    const docs = await this.numbers.find({
      where: { organizationId, voice_enabled: true },
      sort: { field: 'purchasedAt', order: 'asc' },
      limit: 1000,
    });
    return docs.map(ownedView);
  }
}

const ownedView = (d: NumberDocument): OwnedNumberView => ({
  number: d.number,
  provider: d.provider,
  country_iso: d.country_iso,
  sms_enabled: d.sms_enabled,
  voice_enabled: d.voice_enabled,
  purchasedAt: d.purchasedAt ?? '',
  inbound: d.inbound ?? null,
  ...(d.imported && { imported: true }),
});
