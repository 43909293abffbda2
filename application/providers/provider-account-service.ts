/**
 * Provider account use cases: connect an organization's account at a provider (again, to change its
 * credentials), disconnect it, and show the connections masked.
 *
 * Connecting, in this order:
 * 0. the provider is asked whether the credentials control the account id (provider-control.ts);
 *    unreachable, nothing is changed (ProviderUnavailableError);
 * 1. the account id is claimed for the organization (domain/providers/account-claim.ts) with the
 *    provider's answer: no proof refuses the connection (400), another organization holding it
 *    refuses it too (409) unless the provider refuses that holder's own credentials, before
 *    anything is kept;
 * 2. the secrets are kept in the secret store under a fresh reference;
 * 3. the connection is recorded with that reference (the event holds no secret);
 * 4. once the read model has it, what the connection replaced is cleaned: the old secret erased and
 *    the old account id released; a holder displaced at step 1 is disconnected.
 * A connection refused at step 3 erases its secret and gives back a claim it made. A process that
 * stops between the steps leaves at most an unused secret or a claim of its own organization's, which
 * its next connection of that account reuses.
 */
import { accountClaimDecider, accountClaimStreamId } from '../../domain/providers/account-claim';
import {
  providerAccountDecider,
  providerAccountDocumentId,
  providerAccountStreamId,
  PROVIDER_NOT_CONNECTED,
} from '../../domain/providers/provider-account';
import { DomainError, notFound } from '../../domain/shared/errors';
import type { ProviderAccountDocument } from '../../projections/providers/provider-accounts';
import type { CommandContext, CommandHandler } from '../command-handler';
import type { ProviderAccountsByAlias, ProviderAlias } from '../ports/provider-accounts';
import type { ReadCollection } from '../ports/read-store';
import type { SecretStore } from '../ports/secret-store';
import type { RequestContext, ServiceEnvironment } from '../request-context';
import { shapeOf, splitAccount } from './account-shapes';
import type { CachedProviderAccounts } from './provider-accounts';
import type { ControlProof, ProviderControl } from './provider-control';

/** A connection as the API shows it: the account's fields named as in the request, each secret masked. */
export type ProviderAccountView = {
  provider: ProviderAlias;
  accountId: string;
  credentials: Record<string, string | null>;
  connectedAt: string;
};

export type Connect = { [A in ProviderAlias]: { alias: A; account: ProviderAccountsByAlias[A] } }[ProviderAlias];

type Claim = { alias: ProviderAlias; accountId: string; organizationId: string; at: string };

export class ProviderAccountService {
  constructor(
    private readonly commands: CommandHandler,
    private readonly accounts: ReadCollection<ProviderAccountDocument>,
    private readonly secrets: SecretStore,
    private readonly reader: CachedProviderAccounts,
    private readonly env: ServiceEnvironment,
    private readonly control: ProviderControl,
  ) {}

  async connect(ctx: RequestContext, request: Connect): Promise<ProviderAccountView> {
    const proof = await this.proofOf(request);
    const { alias, account } = request;
    const context = commandContext(ctx);
    const at = this.env.now().toISOString();
    // A fresh reference per connection: the old secret is erased, never overwritten.
    const secretRef = `${alias}-${this.env.newId()}`;
    const { connection, secrets } = splitAccount(alias, account, secretRef);
    const claim = { alias, accountId: connection.accountId, organizationId: ctx.organizationId, at };
    const claimed = await this.claim(claim, proof.shown ? null : proof.refusal, context);
    let connected;
    try {
      await this.secrets.put(secretRef, secrets);
      connected = await this.commands.handle(
        providerAccountDecider,
        providerAccountStreamId(ctx.organizationId, alias),
        { type: 'ConnectProvider', organizationId: ctx.organizationId, alias, at, ...connection },
        context,
      );
    } catch (error) {
      await this.secrets.delete(secretRef).catch(() => undefined);
      if (claimed.events.length > 0) await this.release({ ...claim }, context).catch(() => undefined);
      throw error;
    }
    await this.env.readYourWrites(connected.position);
    this.reader.forget();
    for (const event of connected.events) {
      const { replaced } = event.type === 'ProviderConnected' ? event.data : { replaced: null };
      if (!replaced) continue;
      await this.secrets.delete(replaced.secretRef);
      if (replaced.accountId !== connection.accountId)
        await this.release({ ...claim, accountId: replaced.accountId }, context);
    }
    // The claim is ours: another connection of the account is a displaced holder's (left by a stop, too).
    const others = await this.accounts.find({ where: { alias, accountId: connection.accountId } });
    for (const doc of others)
      if (doc.organizationId !== ctx.organizationId)
        await this.disconnectDisplaced(doc.organizationId, claim, ctx.requestId);
    return this.one(ctx, alias);
  }

  /** Disconnects the organization's account at `alias` (404 when none is connected); its secret is erased. */
  async disconnect(ctx: RequestContext, alias: ProviderAlias): Promise<void> {
    const context = commandContext(ctx);
    const at = this.env.now().toISOString();
    const result = await this.commands.handle(
      providerAccountDecider,
      providerAccountStreamId(ctx.organizationId, alias),
      { type: 'DisconnectProvider', organizationId: ctx.organizationId, alias, at },
      context,
    );
    await this.env.readYourWrites(result.position);
    this.reader.forget();
    for (const event of result.events) {
      if (event.type !== 'ProviderDisconnected') continue;
      await this.secrets.delete(event.data.secretRef);
      await this.release({ alias, accountId: event.data.accountId, organizationId: ctx.organizationId, at }, context);
    }
  }

  /** The organization's connections, by provider. */
  async list(ctx: RequestContext): Promise<ProviderAccountView[]> {
    const docs = await this.accounts.find({
      where: { organizationId: ctx.organizationId },
      sort: { field: 'alias', order: 'asc' },
    });
    return docs.map(viewOf);
  }

  /** The organization's connection at `alias`; 404 when it connected none. */
  async one(ctx: RequestContext, alias: ProviderAlias): Promise<ProviderAccountView> {
    const doc = await this.accounts.get(providerAccountDocumentId(ctx.organizationId, alias));
    if (!doc) throw notFound(PROVIDER_NOT_CONNECTED);
    return viewOf(doc);
  }

  private proofOf(request: Connect): Promise<ControlProof> {
    return request.alias === 'twilio'
      ? this.control.twilioAccount(request.account)
      : this.control.whatsappNumber(request.account);
  }

  /**
   * Claims the account id. Taken by another organization, the provider is asked whether it still
   * accepts the holder's own credentials for it: refused, the holder is displaced; accepted, 409.
   */
  private async claim(claim: Claim, refusal: string | null, context: CommandContext) {
    const stream = accountClaimStreamId(claim.alias, claim.accountId);
    const command = { type: 'ClaimProviderAccount' as const, ...claim, refusal, displacing: null };
    try {
      return await this.commands.handle(accountClaimDecider, stream, command, context);
    } catch (error) {
      if (!(error instanceof DomainError) || error.kind !== 'conflict') throw error;
      const { holder } = (await this.commands.load(accountClaimDecider, stream)).state;
      const held = holder === null ? null : await this.heldAccount(holder, claim);
      if (!held || (await this.proofOf(held)).shown) throw error;
      return this.commands.handle(accountClaimDecider, stream, { ...command, displacing: holder }, context);
    }
  }

  /** The holder's connection of the claimed account id, with its secrets, read fresh (not from the cache). */
  private async heldAccount(holder: string, claim: Claim): Promise<Connect | null> {
    const doc = await this.accounts.get(providerAccountDocumentId(holder, claim.alias));
    if (!doc || doc.accountId !== claim.accountId) return null;
    const secrets = await this.secrets.get(doc.secretRef);
    const account = secrets && shapeOf(claim.alias).assemble(doc.identifiers, secrets);
    return account && ({ alias: claim.alias, account } as Connect);
  }

  /** Disconnects a displaced holder's connection of the account, if it still has it, and erases its secret. */
  private async disconnectDisplaced(holder: string, claim: Claim, requestId: string): Promise<void> {
    const { alias, accountId, at } = claim;
    const result = await this.commands.handle(
      providerAccountDecider,
      providerAccountStreamId(holder, alias),
      { type: 'DisconnectProvider', organizationId: holder, alias, at, accountId },
      { organizationId: holder, actor: 'system', requestId },
    );
    await this.env.readYourWrites(result.position);
    this.reader.forget();
    for (const event of result.events)
      if (event.type === 'ProviderDisconnected') await this.secrets.delete(event.data.secretRef);
  }

  private release(claim: Claim, context: CommandContext) {
    return this.commands.handle(
      accountClaimDecider,
      accountClaimStreamId(claim.alias, claim.accountId),
      { type: 'ReleaseProviderAccount', ...claim },
      context,
    );
  }
}

const commandContext = (ctx: RequestContext): CommandContext => ({
  organizationId: ctx.organizationId,
  actor: ctx.actor,
  requestId: ctx.requestId,
});

/** `accountSid` as the request names it: `account_sid`. */
const requestName = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const viewOf = (doc: ProviderAccountDocument): ProviderAccountView => ({
  provider: doc.alias,
  accountId: doc.accountId,
  credentials: Object.fromEntries(
    [...Object.entries(doc.identifiers), ...Object.entries(doc.masked)].map(([field, value]) => [
      requestName(field),
      value,
    ]),
  ),
  connectedAt: doc.connectedAt,
});
