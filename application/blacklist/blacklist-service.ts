/**
 * Blacklist use cases (spec 4.12; decisions.md section 2): add and remove numbers in bulk, list them,
 * and `isBlacklisted` / `snapshot` for the code that dials and messages customers.
 */
import {
  blacklistDecider,
  blacklistDocumentId,
  blacklistKey,
  blacklistStreamId,
  distinctCount,
  normalizePhoneNumber,
  type BlacklistCommand,
} from '../../domain/blacklist/blacklist';
import type { BlacklistDocument } from '../../projections/blacklist/blacklist';
import type { CommandHandler } from '../command-handler';
import { findPage, type Pagination } from '../pagination';
import type { ReadCollection } from '../ports/read-store';
import type { RequestContext, ServiceEnvironment } from '../request-context';

export type BlacklistView = { number: string; name: string | null; addedAt: string };

export class BlacklistService {
  constructor(
    private readonly commands: CommandHandler,
    private readonly entries: ReadCollection<BlacklistDocument>,
    private readonly env: ServiceEnvironment,
  ) {}

  /** Adds the numbers (or renames listed ones); answers how many different numbers the request named. */
  async add(ctx: RequestContext, entries: { number: string; name?: string | null }[]): Promise<{ count: number }> {
    const count = distinctCount(entries.map((e) => e.number));
    await this.execute(ctx, {
      type: 'AddToBlacklist',
      organizationId: ctx.organizationId,
      entries,
      at: this.env.now().toISOString(),
    });
    return { count };
  }

  /** Removes the numbers; a number that is not listed is not an error. */
  async remove(ctx: RequestContext, numbers: string[]): Promise<{ count: number }> {
    const count = distinctCount(numbers);
    await this.execute(ctx, {
      type: 'RemoveFromBlacklist',
      organizationId: ctx.organizationId,
      numbers,
      at: this.env.now().toISOString(),
    });
    return { count };
  }

  async list(
    ctx: RequestContext,
    query: { page: number; limit: number },
  ): Promise<{ data: BlacklistView[]; pagination: Pagination }> {
    const { docs, pagination } = await findPage(
      this.entries,
      { where: { organizationId: ctx.organizationId } },
      query,
      { field: 'addedAt', order: 'desc' },
    );
    return { data: docs.map((d) => ({ number: d.number, name: d.name, addedAt: d.addedAt })), pagination };
  }

  /**
   * Whether the organization has blacklisted the number, written in any of the forms the blacklist
   * accepts (`+91 98123-45678` and `919812345678` are the same number). Read from the read model;
   * a number that is not a phone number is not blacklisted.
   */
  async isBlacklisted(organizationId: string, number: string): Promise<boolean> {
    const normalized = normalizePhoneNumber(number);
    return normalized !== null && (await this.entries.get(blacklistDocumentId(organizationId, normalized))) !== null;
  }

  /**
   * The organization's blacklist as it is now, read once: for requests that check thousands of
   * customers (bulk calls, initiate-chat) in one go.
   */
  async snapshot(organizationId: string): Promise<(phone: string) => boolean> {
    const listed = new Set((await this.entries.find({ where: { organizationId } })).map((e) => blacklistKey(e.number)));
    return (phone) => {
      const normalized = normalizePhoneNumber(phone);
      return normalized !== null && listed.has(blacklistKey(normalized));
    };
  }

  private async execute(ctx: RequestContext, command: BlacklistCommand): Promise<void> {
    const result = await this.commands.handle(blacklistDecider, blacklistStreamId(ctx.organizationId), command, {
      organizationId: ctx.organizationId,
      actor: ctx.actor,
      requestId: ctx.requestId,
    });
    await this.env.readYourWrites(result.position);
  }
}
