/**
 * The call dispatcher checks the blacklist at the dispatch, race-free: a number blacklisted before the
 * dispatch read is never dialed, nor one whose blacklisting lands between that read and the dial's
 * record. The store is the memory adapter; the blacklisting "in between" is made by appending it just
 * before the dial's append reaches the store, as another request would.
 */
import { CarrierReports } from '../../../application/calls/carrier-reports';
import { callDispatcher } from '../../../application/calls/call-dispatcher';
import { CommandHandler } from '../../../application/command-handler';
import type { EventData, EventStore } from '../../../application/ports/event-store';
import type { DialRequest } from '../../../application/ports/telephony';
import { blacklistDecider, blacklistStreamId } from '../../../domain/blacklist/blacklist';
import { callDecider, callStreamId } from '../../../domain/calls/call';
import { MemoryEventStore } from '../../../infrastructure/memory/memory-event-store';

const TO = '+919800000001';
const at = '2026-03-01T10:00:00.000Z';
const context = { organizationId: 'o1', actor: 'test', requestId: 'r1' };

/** The memory store, with a hook run once just before the first append of `CallDialed`. */
function storeWithHook(before: (inner: EventStore) => Promise<void>): EventStore {
  const inner = new MemoryEventStore();
  let ran = false;
  return new Proxy(inner, {
    get(target, property, receiver) {
      if (property !== 'appendToStream') return Reflect.get(target, property, receiver);
      return async (streamId: string, events: readonly EventData[], options?: object) => {
        if (!ran && events.some((e) => e.type === 'CallDialed')) {
          ran = true;
          await before(inner);
        }
        return inner.appendToStream(streamId, events, options);
      };
    },
  });
}

async function scenario(blacklistFirst: boolean) {
  const events = storeWithHook(async (inner) => {
    if (blacklistFirst) return;
    // Another request (another handler, another replica) blacklists the number now.
    await new CommandHandler(inner).handle(
      blacklistDecider,
      blacklistStreamId('o1'),
      { type: 'AddToBlacklist', organizationId: 'o1', entries: [{ number: TO }], at },
      context,
    );
  });
  const commands = new CommandHandler(events);
  if (blacklistFirst)
    await commands.handle(
      blacklistDecider,
      blacklistStreamId('o1'),
      { type: 'AddToBlacklist', organizationId: 'o1', entries: [{ number: TO }], at },
      context,
    );
  await commands.handle(
    callDecider,
    callStreamId('c1'),
    {
      type: 'RequestCall',
      callId: 'c1',
      at,
      organizationId: 'o1',
      campaignId: 'k1',
      campaignName: 'Run',
      customerKeyField: 'loan_id',
      customerKey: 'L1',
      customerName: 'Asha',
      to: TO,
      from: '+918000000001',
      agentId: 'a1',
      dispositionId: 'd1',
      language: 'en',
    },
    context,
  );
  const dialed: DialRequest[] = [];
  const dispatcher = callDispatcher({
    commands,
    provider: { alias: 'builtin', dial: async (request) => void dialed.push(request) },
    reports: new CarrierReports(commands),
    lookups: {
      organizationType: async () => 'collection',
      customer: async () => ({ loan_id: 'L1' }),
      agent: async () => ({ name: 'Asha', voiceId: 'v' }),
      dispositions: async () => [{ id: 'd1', name: 'Paid' }],
    },
    now: () => new Date(at),
    player: 'replica-a',
  });
  const [queued] = await events.readStream(callStreamId('c1'));
  await dispatcher.handle(queued!);
  const history = await events.readStream(callStreamId('c1'));
  return { dialed, types: history.map((e) => e.type), ended: history.find((e) => e.type === 'CallEnded')?.data };
}

describe('call dispatch and the blacklist', () => {
  it('ends a call whose number was blacklisted before the dispatch, without dialing it', async () => {
    const { dialed, types, ended } = await scenario(true);
    expect(dialed).toEqual([]);
    expect(types).toEqual(['CallQueued', 'CallEnded']);
    expect(ended).toMatchObject({ status: 'Failed', reason: 'blacklisted' });
  });

  it('does not dial a number blacklisted between the dispatch read and the dial record', async () => {
    const { dialed, types, ended } = await scenario(false);
    expect(dialed).toEqual([]);
    expect(types).toEqual(['CallQueued', 'CallDialed', 'CallEnded']);
    expect(ended).toMatchObject({
      status: 'Failed',
      reason: 'blacklisted',
      summary: 'The call was not placed: the number was blacklisted before it was dialed.',
    });
  });
});
