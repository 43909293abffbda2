/**
 * The secret store kept in a collection of the read store (`provider_secrets`), through the read-store
 * port: it works on every read store (memory, sqlite, mongodb) with no adapter of its own, and the
 * secrets sit with the rest of the service's data, outside the event log.
 *
 * The collection is no read model: no projection fills it and none lists it, so projection rebuilds
 * and verification (application/rebuild, which work on the projections' collections only) neither
 * wipe nor compare it, and it has no generations. Its writes go through `commit` like a projection's,
 * under a checkpoint name of their own that never moves (-1). A reference is written once and deleted
 * once: its secret at position 0, then a tombstone (the secret erased) at position 1, which a late
 * write of the secret can never replace.
 */
import type { CollectionDefinition, ReadCollection, ReadStore } from '../ports/read-store';
import type { SecretStore } from '../ports/secret-store';

export const SECRETS_COLLECTION: CollectionDefinition = { name: 'provider_secrets', fields: {} };
const CHECKPOINT = 'provider-secrets';
type Secret = { id: string; value: Record<string, string> };

export class ReadStoreSecrets implements SecretStore {
  private constructor(
    private readonly reads: ReadStore,
    private readonly secrets: ReadCollection<Secret>,
  ) {}

  static async open(reads: ReadStore): Promise<ReadStoreSecrets> {
    return new ReadStoreSecrets(reads, await reads.collection<Secret>(SECRETS_COLLECTION));
  }

  async put(ref: string, value: Record<string, string>): Promise<void> {
    await this.write({ id: ref, doc: { id: ref, value: { ...value } }, position: 0, version: 1 });
  }

  async get(ref: string): Promise<Record<string, string> | null> {
    return (await this.secrets.get(ref))?.value ?? null;
  }

  async delete(ref: string): Promise<void> {
    await this.write({ id: ref, doc: null, position: 1, version: 2 });
  }

  private write(document: { id: string; doc: Secret | null; position: number; version: number }): Promise<void> {
    return this.reads.commit({
      projection: CHECKPOINT,
      checkpoint: -1,
      writes: [{ collection: SECRETS_COLLECTION.name, document }],
    });
  }
}
