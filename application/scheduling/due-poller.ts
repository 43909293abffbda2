/**
 * Runs work that falls due at a time (a workflow's wait, a webhook's next attempt) durably: the work
 * items are documents of a read model with a `dueAt` field, projected from the events that scheduled
 * them, so a restarted process finds them again. The poller asks for due items now and then and
 * hands each to the handler, one at a time per item. The handler makes its step safe to repeat (it
 * records the step as a command an aggregate takes only once), because an item may be handed over
 * again after a crash, or by another replica.
 */
import type { Logger } from '../ports/logger';
import type { Condition, ReadCollection } from '../ports/read-store';

export type DueItem = { id: string; dueAt: string };

export type DuePollerOptions = {
  now: () => Date;
  /** How often to look for due items when nothing wakes the poller earlier. */
  intervalMs?: number;
  /** Items handled per look. */
  batch?: number;
  /** Further conditions on the items (for example `pending: true`). */
  where?: Record<string, Condition>;
  logger?: Logger;
  name: string;
};

export class DuePoller<Item extends DueItem> {
  private readonly busy = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  private again = false;

  constructor(
    private readonly items: ReadCollection<Item>,
    private readonly handle: (item: Item) => Promise<void>,
    private readonly options: DuePollerOptions,
  ) {}

  start(): void {
    this.stopped = false;
    this.poke();
  }

  /** Stops looking and waits for the items being handled. */
  async stop(): Promise<void> {
    await this.halt();
    while (this.busy.size > 0) await new Promise((r) => setTimeout(r, 10));
  }

  /** Stops looking; the items being handled finish on their own (a handler that claims its items safely). */
  async halt(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Looks for due items now (after an item was scheduled, say). */
  poke(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.running = this.look().finally(() => {
      this.running = null;
      if (this.stopped) return;
      if (this.again) {
        this.again = false;
        this.poke();
      } else this.timer = setTimeout(() => this.poke(), this.options.intervalMs ?? 250);
    });
  }

  private async look(): Promise<void> {
    try {
      const now = this.options.now().toISOString();
      const due = await this.items.find({
        where: this.options.where ?? {},
        range: { field: 'dueAt', lte: now },
        sort: { field: 'dueAt', order: 'asc' },
        limit: this.options.batch ?? 100,
      });
      for (const item of due) {
        if (this.busy.has(item.id)) continue;
        this.busy.add(item.id);
        void this.handle(item)
          .catch((error) =>
            this.options.logger?.error('due work failed', {
              poller: this.options.name,
              id: item.id,
              error: String(error),
            }),
          )
          .finally(() => this.busy.delete(item.id));
      }
    } catch (error) {
      this.options.logger?.error('due work lookup failed', { poller: this.options.name, error: String(error) });
    }
  }
}
