/**
 * Signals between the processes of one machine (`WORKERS=N`): a process that appended events or
 * committed read models says so, and the first process passes it on to the others, so they look at
 * the shared files at once instead of at their next poll. Only a hint: without it (replicas on other
 * machines, a lost message) every process still finds the same changes by polling.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Observable } from 'rxjs';
import { Subject } from '../../application/rx';
import { EventStoreDecorator } from '../../application/event-store-decorator';
import type { AppendResult, EventData, EventStore, ExpectedRevision } from '../../application/ports/event-store';

export type SiblingSignal = 'appended' | 'projected';
type Message = { siblingSignals: SiblingSignal[] };

const isMessage = (m: unknown): m is Message =>
  typeof m === 'object' && m !== null && Array.isArray((m as Message).siblingSignals);

export type SiblingSignals = {
  /** Tells the other processes; signals of one turn of the event loop go in one message. */
  send(signal: SiblingSignal): void;
  readonly received$: Observable<SiblingSignal>;
};

/** The signals of a process started by `WORKERS=N`; null in a process on its own. */
export function siblingSignals(): SiblingSignals | null {
  if (!cluster.isWorker || !process.send) return null;
  const received = new Subject<SiblingSignal>();
  process.on('message', (message: unknown) => {
    if (isMessage(message)) for (const signal of message.siblingSignals) received.next(signal);
  });
  const queued = new Set<SiblingSignal>();
  return {
    send(signal) {
      if (queued.size === 0)
        setImmediate(() => {
          const siblingSignals = [...queued];
          queued.clear();
          // A process that is stopping may have lost its channel: the others then poll.
          if (process.connected)
            process.send!({ siblingSignals } satisfies Message, undefined, undefined, () => undefined);
        });
      queued.add(signal);
    },
    received$: received.asObservable(),
  };
}

/** In the first process: passes each worker's signals on to every other worker. */
export function relaySiblingSignals(from: Worker, workers: () => Iterable<Worker>): void {
  from.on('message', (message: unknown) => {
    if (!isMessage(message)) return;
    for (const worker of workers())
      if (worker !== from && worker.isConnected()) worker.send(message, undefined, () => undefined);
  });
}

/** The event store, telling the other processes whenever one of its appends is on disk. */
export class SignallingEventStore extends EventStoreDecorator {
  constructor(
    store: EventStore,
    private readonly signals: SiblingSignals,
  ) {
    super(store);
  }

  override async appendToStream(
    streamId: string,
    events: readonly EventData[],
    options?: { expectedRevision?: ExpectedRevision },
  ): Promise<AppendResult> {
    const result = await this.store.appendToStream(streamId, events, options);
    this.signals.send('appended');
    return result;
  }
}
