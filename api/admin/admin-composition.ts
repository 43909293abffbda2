/**
 * What the admin command line runs on: the event store, a command handler, and the organization and
 * number services its commands use. It is not the service (api/composition.ts): no projection, process
 * manager, poller, resumer or speech engine starts, so it runs beside live replicas without taking any
 * of their work, and finishes as soon as its command does.
 *
 * With no projection running, nothing may wait for a read model: read-your-writes is a no-op. What a
 * command answers from or checks against a read model is taken from the event store instead, so the
 * answer is right whether or not a server runs and however far behind the read models are:
 * - an organization (create-org, get-org, credits, issue-token) is folded from its own stream;
 * - the numbers already known (add-numbers skips them) are those of the numbers read model, and those
 *   of the events it has not applied yet, and the built-in provider's (seeded by the first agent process).
 *   The read store is opened for that (and for the keys of sealed personal data) when first needed.
 *
 * `projections rebuild` and `verify` (docs/projection-rebuild.md) work on the read models of every
 * module: rebuild into a new generation of the live read store, then switch; verify into a scratch
 * SQLite file in the temporary directory, removed afterwards.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommandHandler } from '../../application/command-handler';
import type { CommandContext } from '../../application/command-handler';
import { NumberService, type InventoryItem } from '../../application/numbers/number-service';
import { OrganizationService, type OrganizationLookup } from '../../application/organizations/organization-service';
import type { EventStore, RecordedEvent } from '../../application/ports/event-store';
import type { ReadCollection, ReadStore } from '../../application/ports/read-store';
import { PersonalDataEventStore } from '../../application/privacy/personal-data-event-store';
import { keyStoreOpenedOnUse } from '../../application/privacy/read-store-keys';
import type { ServiceEnvironment } from '../../application/request-context';
import { rebuildProjections, type RebuildProgress, type RebuildSummary } from '../../application/rebuild/rebuild';
import { verifyProjections, type VerifyReport } from '../../application/rebuild/verify';
import type { BuildProgress } from '../../application/rebuild/generation-builder';
import { timeOrderedId } from '../../application/time-ordered-id';
import { UpcastingEventStore } from '../../application/upcasting-event-store';
import { builtinInventory } from '../../domain/numbers/builtin-inventory';
import type { InventoryEvent } from '../../domain/numbers/inventory';
import type { PhoneNumberEvent } from '../../domain/numbers/owned-number';
import {
  organizationDecider,
  organizationStreamId,
  type OrganizationEvent,
} from '../../domain/organizations/organization';
import { tokenSigner } from '../../infrastructure/auth/jwt';
import type { Config } from '../../infrastructure/config/config';
import { SqliteReadStore } from '../../infrastructure/sqlite/sqlite-read-store';
import { openEventStore, openKeyStore, openReadStore } from '../../infrastructure/stores';
import { numbersProjection, type NumberDocument } from '../../projections/numbers/numbers';
import type { OrganizationDocument } from '../../projections/organizations/organizations';
import { fastestAesGcm } from '../../infrastructure/crypto/openssl-aes-gcm';

/** Events read at a time when catching up with what the numbers read model has not applied. */
const TAIL_PAGE = 1000;

export type AdminComposition = {
  organizations: OrganizationService;
  numbers: { stock(ctx: CommandContext, items: readonly InventoryItem[]): Promise<{ added: number }> };
  projections: {
    /** Names of every projection the service runs. */
    names(): Promise<string[]>;
    rebuild(names: readonly string[], onProgress?: (progress: RebuildProgress) => void): Promise<RebuildSummary>;
    verify(
      names: readonly string[],
      onProgress?: (progress: BuildProgress & { head: number }) => void,
    ): Promise<VerifyReport>;
  };
  close(): Promise<void>;
};

/**
 * Every read model the service keeps over this event store (not the audit's event index over one that
 * searches its own events), with the feeds of those that read one derived from the log (the analytics
 * rollups), loaded when a projections command needs them (not for the others).
 */
const readModels = async (events: EventStore) =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require('../modules') as typeof import('../modules')).readModelsOver(events);

export async function createAdminComposition(config: Config): Promise<AdminComposition> {
  // Opened on first use: add-numbers and the projections commands need the read store (and the keys in it).
  let reads: Promise<{ store: ReadStore; collection: ReadCollection<NumberDocument> }> | null = null;
  const numbersReadModel = () =>
    (reads ??= openReadStore(config).then(async (store) => ({
      store,
      collection: await store.collection<NumberDocument>(numbersProjection.collection),
    })));
  // Events read as the service reads them: personal fields opened, in the current shape of their types
  // (docs/privacy.md, docs/event-versions.md).
  let ownKeys: ReturnType<typeof openKeyStore> | null = null;
  const keys = keyStoreOpenedOnUse(
    () =>
      (ownKeys ??= openKeyStore(config, async () => (await numbersReadModel()).store).catch((error: unknown) => {
        ownKeys = null;
        throw error;
      })),
  );
  // Its readers (a rebuild, a verification) read each event once: nothing opened is kept for others.
  const events = new UpcastingEventStore(
    new PersonalDataEventStore(await openEventStore(config), keys, {
      seal: config.personalDataEncryption,
      keepOpened: 0,
      cipher: fastestAesGcm(),
    }),
  );
  const env: ServiceEnvironment = {
    now: () => new Date(),
    newId: () => timeOrderedId(),
    // No projection runs here, so there is nothing to wait for: answers come from the event store.
    readYourWrites: async () => undefined,
  };
  const commands = new CommandHandler(events, env.now);
  const organizations = new OrganizationService(
    commands,
    organizationsFromStreams(commands, events),
    tokenSigner(config.jwtSecret, config.jwt),
    env,
  );
  const numbers = {
    async stock(ctx: CommandContext, items: readonly InventoryItem[]) {
      const { store, collection } = await numbersReadModel();
      const known = await knownNumbers(
        events,
        store,
        collection,
        items.map((i) => i.number),
      );
      // The service skips what the read model knows as well: none of the numbers left.
      const fresh = items.filter((i) => !known.has(i.number));
      return new NumberService(commands, collection, env).stock(ctx, fresh);
    },
  };
  const projections: AdminComposition['projections'] = {
    names: async () => (await readModels(events)).all.map((p) => p.name),
    rebuild: async (names, onProgress) =>
      rebuildProjections({
        events,
        reads: (await numbersReadModel()).store,
        ...(await readModels(events)),
        names,
        owner: `${hostname()}:${process.pid}:admin`,
        leaseTtlMs: config.leaseTtlMs,
        ...(onProgress && { onProgress }),
      }),
    async verify(names, onProgress) {
      const { all, feeds } = await readModels(events);
      const live = (await numbersReadModel()).store;
      const dir = mkdtempSync(join(tmpdir(), 'verify-read-models-'));
      const scratch = new SqliteReadStore(join(dir, 'read.db'));
      try {
        return await verifyProjections({ events, live, scratch, all, feeds, names, ...(onProgress && { onProgress }) });
      } finally {
        await scratch.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  return {
    organizations,
    numbers,
    projections,
    async close() {
      await events.close();
      await (await ownKeys)?.close();
      await (await reads)?.store.close();
    },
  };
}

/**
 * Organizations as their streams have them: the aggregate's state (loaded by the command handler, so
 * it is the state the last command decided on) and the time of its registration, the first event.
 * The same document the organizations read model holds once it has caught up.
 */
export function organizationsFromStreams(commands: CommandHandler, events: EventStore): OrganizationLookup {
  return {
    async get(id: string): Promise<OrganizationDocument | null> {
      const streamId = organizationStreamId(id);
      const { state } = await commands.load(organizationDecider, streamId);
      if (state.status !== 'registered') return null;
      const [first] = await events.readStream(streamId, { maxCount: 1 });
      const registered = first as RecordedEvent & Extract<OrganizationEvent, { type: 'OrganizationRegistered' }>;
      return {
        id,
        name: state.name,
        type: state.type,
        credits: state.credits,
        concurrencyLimit: state.concurrencyLimit,
        createdAt: registered.data.at,
      };
    },
  };
}

/**
 * Which of `candidates` are already known, in any provider's inventory or owned: the numbers read
 * model up to its checkpoint, the inventory and purchase events after it, and the built-in provider's
 * numbers (known before any stock, as in the service, whose first agent process seeds them). The
 * checkpoint is read before the documents, so the events read after it cover whatever the read model
 * applies meanwhile.
 */
export async function knownNumbers(
  events: EventStore,
  reads: ReadStore,
  collection: ReadCollection<NumberDocument>,
  candidates: readonly string[],
): Promise<Set<string>> {
  const wanted = new Set(candidates);
  const known = new Set<string>();
  const add = (numbers: readonly string[]) => {
    for (const number of numbers) if (wanted.has(number)) known.add(number);
  };
  add(builtinInventory().map((n) => n.number));
  let after = await reads.checkpoint(numbersProjection.name);
  add((await collection.find({ where: { number: { in: [...wanted] } } })).map((d) => d.number));
  for (;;) {
    const page = await events.readAll({ after, maxCount: TAIL_PAGE });
    for (const event of page) add(numbersIn(event));
    if (page.length < TAIL_PAGE) return known;
    after = page[page.length - 1]!.position;
  }
}

/** The numbers an inventory or purchase event names; none for any other event. */
function numbersIn(recorded: RecordedEvent): string[] {
  const event = recorded as RecordedEvent & (InventoryEvent | PhoneNumberEvent);
  switch (event.type) {
    case 'InventorySeeded':
    case 'NumbersStocked':
      return event.data.numbers.map((n) => n.number);
    case 'NumberPurchased':
      return [event.data.number];
    default:
      return [];
  }
}
