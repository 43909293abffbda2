/**
 * Simulated inbound traffic on the built-in providers, to try inbound calls and chats offline
 * (docs/inbound.md): a caller calls, or writes first to, one of the organization's numbers. The
 * built-in carrier and chat platform offer it to the service as a real provider's webhook would.
 *
 * A caller not named is one of the number's organization's customers (a random one of its latest
 * few), or a random number when it has none. With SIMULATE_INBOUND_PER_MINUTE set, the
 * `inbound-simulator` job (one replica at a time) offers that many a minute, each to a random number
 * with an inbound agent, on a random channel.
 */
import type { NumberDocument } from '../../projections/numbers/numbers';
import type { CustomerDocument } from '../../projections/customers/customers';
import { pause } from '../pause';
import type { Logger } from '../ports/logger';
import type { ReadCollection } from '../ports/read-store';

export type InboundChannel = 'call' | 'chat';

/** What the provider was told: answered (with the call's or chat's id), or refused and why. */
export type ProviderAnswer =
  | { outcome: 'answered'; callId?: string; messageId?: string }
  | { outcome: 'refused'; reason: string; callId?: string; messageId?: string };

export type SimulatedInbound = {
  channel: InboundChannel;
  number: string;
  from: string;
  outcome: 'answered' | 'refused';
  reason?: string;
  callId?: string;
  messageId?: string;
};

export type InboundSimulationDeps = {
  numbers: ReadCollection<NumberDocument>;
  customers: ReadCollection<CustomerDocument>;
  /** The built-in providers' inbound entries; a channel without one refuses (`channel_unavailable`). */
  call?: (offer: { number: string; from: string }) => Promise<ProviderAnswer>;
  chat?: (offer: { number: string; from: string }) => Promise<ProviderAnswer>;
  random?: () => number;
};

const CUSTOMERS_SAMPLED = 50;

export class InboundSimulation {
  private readonly random: () => number;

  constructor(private readonly deps: InboundSimulationDeps) {
    this.random = deps.random ?? Math.random;
  }

  async simulate(request: { number: string; channel: InboundChannel; from?: string }): Promise<SimulatedInbound> {
    const from = request.from ?? (await this.callerFor(request.number));
    const offer = request.channel === 'call' ? this.deps.call : this.deps.chat;
    const base = { channel: request.channel, number: request.number, from };
    if (!offer) return { ...base, outcome: 'refused', reason: 'channel_unavailable' };
    const { outcome, ...rest } = await offer({ number: request.number, from });
    return { ...base, outcome, ...rest };
  }

  /** One simulated contact to a random number that has an inbound agent; null when there is none. */
  async simulateOne(): Promise<SimulatedInbound | null> {
    const routed = (await this.deps.numbers.find({ where: { status: 'owned' }, limit: 1000 })).filter((n) => n.inbound);
    if (routed.length === 0) return null;
    const number = routed[Math.floor(this.random() * routed.length)]!;
    return this.simulate({ number: number.number, channel: this.random() < 0.5 ? 'call' : 'chat' });
  }

  /** A caller for `number`: one of its organization's customers, or a random Indian mobile number. */
  private async callerFor(number: string): Promise<string> {
    const organizationId = (await this.deps.numbers.get(number))?.organizationId;
    if (organizationId) {
      // Any few of them (an index leads with the organization): no sort, so no scan of every customer.
      const customers = await this.deps.customers.find({ where: { organizationId }, limit: CUSTOMERS_SAMPLED });
      const phones = customers.map((c) => c.phone_number).filter((p) => p !== '');
      if (phones.length > 0) return phones[Math.floor(this.random() * phones.length)]!;
    }
    return `+919${String(Math.floor(this.random() * 1e9)).padStart(9, '0')}`;
  }
}

/** The steady simulated traffic: `perMinute` contacts a minute while started (a leased job). */
export function steadyInboundTraffic(deps: { simulation: InboundSimulation; perMinute: number; logger: Logger }) {
  let stopping: AbortController | null = null;
  let done: Promise<void> = Promise.resolve();
  const every = 60_000 / deps.perMinute;

  async function run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await pause(every, signal, { unref: true });
      if (signal.aborted) return;
      try {
        await deps.simulation.simulateOne();
      } catch (error) {
        deps.logger.error('a simulated inbound contact failed', { error: String(error) });
      }
    }
  }

  return {
    start(): void {
      if (stopping || deps.perMinute <= 0) return;
      const controller = new AbortController();
      stopping = controller;
      done = done.then(() => run(controller.signal));
    },
    async stop(): Promise<void> {
      stopping?.abort();
      stopping = null;
      await done;
    },
  };
}
