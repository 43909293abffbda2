/**
 * The steps of an erasure once it is requested (docs/privacy.md, "Erasure"): delete the subjects' keys
 * and their recordings, record `PersonalDataErased`, wait until the read models have masked what it
 * names, compact the read store, record `PersonalDataErasureCompleted`. Each step can be taken again (a
 * step recorded records nothing the second time), so an erasure cut anywhere (a crash, a kill) is
 * finished by taking them all again: when a replica starts, or before the organization's next erasure.
 * Until its completion is recorded the erasure is unfinished and the service reports itself not ready.
 */
import { privacyDecider, privacyStreamId } from '../../domain/privacy/erasure';
import type { UnfinishedErasureDocument } from '../../projections/privacy/unfinished-erasures';
import type { CommandHandler } from '../command-handler';
import type { BlobStore } from '../ports/blob-store';
import type { KeyStore } from '../ports/key-store';
import type { ReadCollection } from '../ports/read-store';
import type { ServiceEnvironment } from '../request-context';
import { deleteRecordings } from './recordings';

export type ErasureCompletionDeps = {
  commands: CommandHandler;
  env: ServiceEnvironment;
  keys: KeyStore;
  recordings: BlobStore;
  unfinished: ReadCollection<UnfinishedErasureDocument>;
  /** Resolves once every read model includes the event at `position` (the store's head when absent), however long that takes. */
  readModelsInclude: (position?: number) => Promise<void>;
  /** Resolves once the read model of unfinished erasures includes every event stored now. */
  unfinishedIncludeStore: () => Promise<void>;
  /** Leaves no former version of an erased document in the read store's files (`ReadStore.compact`). */
  compact: () => Promise<void>;
};

/**
 * One of the organization's erasures is not finished: a read of personal data meanwhile, or a request
 * whose erasure the service's stop cut. Answered 503, never with data an erasure has not masked yet.
 */
export class ErasureUnfinishedError extends Error {
  constructor() {
    super("An erasure of this organization's personal data is being completed; try again shortly");
  }
}

export class ErasureCompletion {
  /** The erasures this process is finishing, by id: a second caller waits for the same run. */
  private readonly running = new Map<string, Promise<number>>();
  /** Until the first look at start: whether an erasure was cut before this process started is not known yet. */
  private looked = false;

  constructor(private readonly deps: ErasureCompletionDeps) {}

  /** Takes the erasure's steps; answers how many recordings it deleted (none when they were gone already). */
  finish(erasure: UnfinishedErasureDocument): Promise<number> {
    const running = this.running.get(erasure.id);
    if (running) return running;
    const run = this.steps(erasure).finally(() => this.running.delete(erasure.id));
    this.running.set(erasure.id, run);
    return run;
  }

  /**
   * Before an erasure of the organization: once every read model includes what is stored now (so the
   * erasure finds all its subjects' documents), finishes the organization's unfinished erasures.
   */
  async finishBeforeErasure(organizationId: string): Promise<void> {
    await this.deps.readModelsInclude();
    await this.finishFound(await this.deps.unfinished.find({ where: { organizationId } }));
  }

  /**
   * At start: once the read model of unfinished erasures includes what is stored now, finishes what a
   * cut run left. Only that read model is waited for: a lag of the others does not make the service unready.
   */
  async finishAtStart(): Promise<void> {
    await this.deps.unfinishedIncludeStore();
    await this.finishFound(await this.deps.unfinished.find({}));
    this.looked = true;
  }

  private async finishFound(found: readonly UnfinishedErasureDocument[]): Promise<void> {
    for (const erasure of found) await this.finish(erasure);
  }

  /** Whether an erasure is under way or unfinished, here or on another replica (readiness). */
  async pending(): Promise<boolean> {
    if (!this.looked || this.running.size > 0) return true;
    return (await this.deps.unfinished.count({})) > 0;
  }

  /** Whether one of the organization's erasures is under way or unfinished (its reads of personal data wait). */
  async pendingIn(organizationId: string): Promise<boolean> {
    if (!this.looked) return true;
    return (await this.deps.unfinished.count({ where: { organizationId } })) > 0;
  }

  private async steps(erasure: UnfinishedErasureDocument): Promise<number> {
    const { keys, recordings, commands, env } = this.deps;
    const { organizationId } = erasure;
    const context = { organizationId, actor: 'privacy-erasure', requestId: `privacy-erasure-${erasure.id}` };
    const record = (type: 'RecordErasure' | 'CompleteErasure') =>
      commands.handle(
        privacyDecider,
        privacyStreamId(organizationId),
        { type, organizationId, erasureId: erasure.id, at: env.now().toISOString() },
        context,
      );
    await keys.eraseSubjects(erasure.subjectIds);
    const deleted = await deleteRecordings(recordings, erasure.recordingIds);
    // Recorded only now: whatever was sealed with the keys is in the log before it, so its masks cover it.
    const erased = await record('RecordErasure');
    await this.deps.readModelsInclude(erased.events.length > 0 ? erased.position : undefined);
    await this.deps.compact();
    await record('CompleteErasure');
    return deleted;
  }
}
