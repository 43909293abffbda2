/**
 * The organizations' provider accounts as the provider adapters read them (the `ProviderAccounts`
 * port): the read model of connections, with each connection's secrets from the secret store.
 *
 * Answers are cached for a few seconds. A webhook or a dispatched message asks for the same account
 * again and again, and each answer costs a read-model query and a secret-store read; a connection
 * changes rarely. A change made on this replica clears the cache at once; one made on another
 * replica is seen here within `ttlMs`, the price of not reading twice per message. Webhooks name
 * account ids anyone can make up, so the cache is bounded too.
 */
import type { ProviderAccountDocument } from '../../projections/providers/provider-accounts';
import type { ProviderAccounts, ProviderAccountsByAlias, ProviderAlias } from '../ports/provider-accounts';
import type { ReadCollection } from '../ports/read-store';
import type { SecretStore } from '../ports/secret-store';
import { shapeOf, verifyTokenHash } from './account-shapes';

const DEFAULT_TTL_MS = 5_000;
const MAX_CACHED = 10_000;

type Cached = { value: Promise<unknown>; expires: number };

export class CachedProviderAccounts implements ProviderAccounts {
  private readonly cache = new Map<string, Cached>();

  constructor(
    private readonly accounts: ReadCollection<ProviderAccountDocument>,
    private readonly secrets: SecretStore,
    private readonly options: { now?: () => number; ttlMs?: number } = {},
  ) {}

  accountOf<A extends ProviderAlias>(organizationId: string, alias: A): Promise<ProviderAccountsByAlias[A] | null> {
    return this.cached(`account ${organizationId} ${alias}`, async () => {
      const [doc] = await this.accounts.find({ where: { organizationId, alias }, limit: 1 });
      return doc ? this.assemble(alias, doc) : null;
    });
  }

  byAccountId<A extends ProviderAlias>(
    alias: A,
    accountId: string,
  ): Promise<{ organizationId: string; account: ProviderAccountsByAlias[A] } | null> {
    return this.cached(`id ${alias} ${accountId}`, async () => {
      const [doc] = await this.accounts.find({ where: { alias, accountId }, limit: 1 });
      const account = doc ? await this.assemble(alias, doc) : null;
      return doc && account ? { organizationId: doc.organizationId, account } : null;
    });
  }

  hasWhatsAppVerifyToken(token: string): Promise<boolean> {
    if (token === '') return Promise.resolve(false);
    const hash = verifyTokenHash(token);
    return this.cached(`verify ${hash}`, async () => {
      const count = await this.accounts.count({ where: { alias: 'whatsapp', verifyTokenHash: hash } });
      return count > 0;
    });
  }

  /** Forgets every cached answer: a connection changed on this replica. */
  forget(): void {
    this.cache.clear();
  }

  /** The account of a connection; null while its secret is missing (erased with a change being recorded). */
  private async assemble<A extends ProviderAlias>(
    alias: A,
    doc: ProviderAccountDocument,
  ): Promise<ProviderAccountsByAlias[A] | null> {
    const secrets = await this.secrets.get(doc.secretRef);
    return secrets && shapeOf(alias).assemble(doc.identifiers, secrets);
  }

  private cached<T>(key: string, load: () => Promise<T>): Promise<T> {
    const now = (this.options.now ?? Date.now)();
    const hit = this.cache.get(key);
    if (hit && hit.expires > now) return hit.value as Promise<T>;
    if (this.cache.size >= MAX_CACHED) this.cache.clear();
    const value = load();
    this.cache.set(key, { value, expires: now + (this.options.ttlMs ?? DEFAULT_TTL_MS) });
    // A failed read is not kept: the next ask reads again.
    value.catch(() => this.cache.get(key)?.value === value && this.cache.delete(key));
    return value;
  }
}
