/**
 * Speech capacity reserved in advance (domain/organizations/organization.ts). For each organization
 * this replica holds blocks of slots and characters, reserved durably on the organization's stream,
 * and admits requests into them in memory: such a request's first audio waits for no append. A request
 * that fits no block is admitted on the stream, one by one, as before, and a new block is reserved
 * meanwhile for the next ones.
 *
 * A block admits requests for `admitMs` after its reservation; its lease runs `leaseMs` longer, the
 * lease of the last request it may admit, so it never stops counting while one of its requests speaks.
 * A block is released once it has held no request for `idleMs` (at once when it no longer admits),
 * after its requests' finishes are recorded, so capacity held for nothing goes back to other replicas.
 */
import {
  organizationDecider,
  organizationStreamId,
  type OrganizationEvent,
} from '../../domain/organizations/organization';
import type { CommandHandler } from '../command-handler';
import type { ServiceEnvironment } from '../request-context';

export type CapacityOptions = {
  /** How long a block admits requests after it is reserved. */
  admitMs: number;
  /** How long a block may hold no request before it is released. */
  idleMs: number;
  /** How long after a refused reservation the next is tried. */
  retryMs: number;
};

export const DEFAULT_CAPACITY_OPTIONS: CapacityOptions = { admitMs: 60_000, idleMs: 5_000, retryMs: 1_000 };

/** A block as this replica spends it: `spent` is the characters of its running requests and what its finished ones paid. */
export type HeldBlock = {
  readonly id: string;
  readonly organizationId: string;
  readonly slots: number;
  readonly characters: number;
  readonly admitUntil: number;
  running: number;
  spent: number;
  released: boolean;
  idle?: NodeJS.Timeout;
};

type Holdings = { blocks: HeldBlock[]; reserving: Promise<void> | null; retryAt: number };

const CONTEXT = { actor: 'speech-capacity' };

export class SpeechCapacity {
  private readonly held = new Map<string, Holdings>();

  constructor(
    private readonly commands: CommandHandler,
    private readonly env: ServiceEnvironment,
    /** The longest request: a block holds this many characters per slot (less when credits are short). */
    private readonly charactersPerSlot: number,
    /** A request's lease: a block's lease is its admission window and this. */
    private readonly leaseMs: number,
    private readonly options: CapacityOptions = DEFAULT_CAPACITY_OPTIONS,
  ) {}

  /**
   * A block with room for a request of `characters`, taken for it; or null, and a block is reserved in
   * the background for the requests that follow.
   */
  take(organizationId: string, characters: number): HeldBlock | null {
    const holdings = this.holdings(organizationId);
    const now = this.env.now().getTime();
    const block = holdings.blocks.find(
      (b) => !b.released && b.admitUntil > now && b.running < b.slots && b.spent + characters <= b.characters,
    );
    if (!block) {
      // After this request's own admission, which is queued on the stream in this turn: the block must
      // not take the capacity that request needs.
      if (!holdings.reserving && now >= holdings.retryAt)
        holdings.reserving = new Promise<void>((resolve) => queueMicrotask(resolve)).then(() =>
          this.reserve(organizationId, holdings),
        );
      return null;
    }
    clearTimeout(block.idle);
    block.running++;
    block.spent += characters;
    return block;
  }

  /** A request of the block ended and its finish is recorded (or failed): its slot and unpaid characters come back. */
  giveBack(block: HeldBlock, characters: number, charged: number): void {
    block.running--;
    block.spent -= characters - charged;
    if (block.running > 0 || block.released) return;
    const wait = block.admitUntil > this.env.now().getTime() ? this.options.idleMs : 0;
    block.idle = setTimeout(() => void this.release(block).catch(() => undefined), wait);
    block.idle.unref();
  }

  /** Releases the organization's blocks that hold no request; true if there was one. */
  async releaseIdle(organizationId: string): Promise<boolean> {
    const idle = this.holdings(organizationId).blocks.filter((b) => !b.released && b.running === 0);
    await Promise.all(idle.map((b) => this.release(b)));
    return idle.length > 0;
  }

  /** Releases every block that holds no request (a stop: the requests have settled). */
  async releaseAll(): Promise<void> {
    for (const holdings of this.held.values()) await holdings.reserving;
    await Promise.allSettled([...this.held.keys()].map((organizationId) => this.releaseIdle(organizationId)));
  }

  private holdings(organizationId: string): Holdings {
    let holdings = this.held.get(organizationId);
    if (!holdings) this.held.set(organizationId, (holdings = { blocks: [], reserving: null, retryAt: 0 }));
    return holdings;
  }

  private async reserve(organizationId: string, holdings: Holdings): Promise<void> {
    const now = this.env.now();
    const blockId = this.env.newId();
    try {
      const { events } = await this.commands.handle(
        organizationDecider,
        organizationStreamId(organizationId),
        {
          type: 'ReserveSpeechCapacity',
          blockId,
          charactersPerSlot: this.charactersPerSlot,
          leaseUntil: new Date(now.getTime() + this.options.admitMs + this.leaseMs).toISOString(),
          at: now.toISOString(),
        },
        { organizationId, requestId: blockId, ...CONTEXT },
      );
      const reserved = events.find(
        (e): e is Extract<OrganizationEvent, { type: 'SpeechCapacityReserved' }> => e.type === 'SpeechCapacityReserved',
      );
      if (!reserved) return;
      const block: HeldBlock = {
        id: blockId,
        organizationId,
        slots: reserved.data.slots,
        characters: reserved.data.characters,
        admitUntil: now.getTime() + this.options.admitMs,
        running: 0,
        spent: 0,
        released: false,
      };
      holdings.blocks.push(block);
      // Held for nothing until a request comes: released after the same idle time as any block.
      block.idle = setTimeout(() => void this.release(block).catch(() => undefined), this.options.idleMs);
      block.idle.unref();
    } catch {
      // Refused (no room, too few credits) or not recorded: requests are admitted one by one meanwhile.
      holdings.retryAt = now.getTime() + this.options.retryMs;
    } finally {
      holdings.reserving = null;
    }
  }

  private async release(block: HeldBlock): Promise<void> {
    if (block.released || block.running > 0) return;
    block.released = true;
    clearTimeout(block.idle);
    const holdings = this.holdings(block.organizationId);
    holdings.blocks = holdings.blocks.filter((b) => b !== block);
    await this.commands.handle(
      organizationDecider,
      organizationStreamId(block.organizationId),
      { type: 'ReleaseSpeechCapacity', blockId: block.id, at: this.env.now().toISOString() },
      { organizationId: block.organizationId, requestId: block.id, ...CONTEXT },
    );
  }
}
