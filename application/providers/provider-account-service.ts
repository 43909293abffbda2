/**
 * Provider account use cases: connect an organization's account at a provider (again, to change its
 * credentials), disconnect it, and show the connections masked.
 *
 * Connecting, in this order:
 * 0. the provider is asked whether the credentials control the account id (provider-control.ts);
 *    unreachable, nothing is changed (ProviderUnavailableError);
 * 1. the account id is claimed for the organization (domain/providers/account-claim.ts) with the
 *    provider's answer: no proof refuses the connection (400), another organization holding it
 *    refuses it too (409), before anything is kept;
 * 2. the secrets are kept in the secret store under a fresh reference;
 * 3. the connection is recorded with that reference (the event holds no secret);
 * 4. once the read model has it, what the connection replaced is cleaned: the old secret erased and
 *    the old account id released.
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
import { notFound } from '../../domain/shared/errors';
import type { ProviderAccountDocument } from '../../projections/providers/provider-accounts';
import type { CommandContext, CommandHandler } from '../command-handler';
import type { ProviderAccountsByAlias, ProviderAlias } from '../ports/provider-accounts';
import type { ReadCollection } from '../ports/read-store';
import type { SecretStore } from '../ports/secret-store';
import type { RequestContext, ServiceEnvironment } from '../request-context';
import { splitAccount } from './account-shapes';
import type { CachedProviderAccounts } from './provider-accounts';
import type { ProviderControl } from './provider-control';

/** A connection as the API shows it: the account's fields named as in the request, each secret masked. */
export type ProviderAccountView = {
  provider: ProviderAlias;
  accountId: string;
  credentials: Record<string, string | null>;
  connectedAt: string;
};

export type Connect = { [A in ProviderAlias]: { alias: A; account: ProviderAccountsByAlias[A] } }[ProviderAlias];

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
    const proof =
      request.alias === 'twilio'
        ? await this.control.twilioAccount(request.account)
        : await this.control.whatsappNumber(request.account);
    const { alias, account } = request;
    const context = commandContext(ctx);
    const at = this.env.now().toISOString();
    // A fresh reference per connection: the old secret is erased, never overwritten.
    const secretRef = `${alias}-${this.env.newId()}`;
    const { connection, secrets } = splitAccount(alias, account, secretRef);
    const claim = { alias, accountId: connection.accountId, organizationId: ctx.organizationId, at };
    const claimed = await this.commands.handle(
      accountClaimDecider,
      accountClaimStreamId(alias, connection.accountId),
      { type: 'ClaimProviderAccount', ...claim, refusal: proof.shown ? null : proof.refusal },
      context,
    );
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

  private release(
    claim: { alias: ProviderAlias; accountId: string; organizationId: string; at: string },
    context: CommandContext,
  ) {
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
