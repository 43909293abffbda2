/**
 * `open_calls` and `open_chats`: a document from the dial (dispatch) until the end, with the replica
 * that plays it; an adoption moves it to its new player, and a dial recorded without a player leaves
 * `player` null (orphaned). An adoption arriving after the end opens nothing.
 */
import type { CallEvent } from '../../../domain/calls/call';
import type { ChatEvent } from '../../../domain/chats/chat';
import { openCallsProjection, type OpenCallDocument } from '../../../projections/calls/open-calls';
import { openChatsProjection, type OpenChatDocument } from '../../../projections/chats/open-chats';
import { recordedEvent } from '../../support/events';

const t0 = '2026-03-01T10:00:00.000Z';
const t1 = '2026-03-01T10:00:30.000Z';

const foldCalls = (events: CallEvent[]) =>
  events.reduce<OpenCallDocument | null>(
    (doc, e, i) => openCallsProjection.evolve('k1', doc, recordedEvent(e, i, { streamId: 'call-k1' })),
    null,
  );
const foldChats = (events: ChatEvent[]) =>
  events.reduce<OpenChatDocument | null>(
    (doc, e, i) => openChatsProjection.evolve('m1', doc, recordedEvent(e, i, { streamId: 'chat-m1' })),
    null,
  );

describe('open calls projection', () => {
  const dialed: CallEvent = { type: 'CallDialed', data: { callId: 'k1', provider: 'builtin', at: t0, player: 'a' } };
  const adopted: CallEvent = { type: 'CallAdopted', data: { callId: 'k1', player: 'b', from: 'a', at: t1 } };
  const ended: CallEvent = {
    type: 'CallEnded',
    data: {
      callId: 'k1',
      at: t1,
      status: 'No Contact',
      reason: 'no_answer',
      durationSeconds: 0,
      disposition: null,
      summary: '',
      extractedData: {},
      transcript: [],
      transcriptId: null,
      recordingId: null,
    },
  };

  it('keeps the player of the dial, then of each adoption', () => {
    expect(foldCalls([dialed])).toEqual({ id: 'k1', provider: 'builtin', dialedAt: t0, player: 'a' });
    expect(foldCalls([dialed, adopted])).toEqual({ id: 'k1', provider: 'builtin', dialedAt: t0, player: 'b' });
  });

  it('has no player (null) for a call dialed before players were recorded', () => {
    const legacy: CallEvent = { type: 'CallDialed', data: { callId: 'k1', provider: 'builtin', at: t0 } };
    expect(foldCalls([legacy])).toEqual({ id: 'k1', provider: 'builtin', dialedAt: t0, player: null });
  });

  it('removes the call at its end; an adoption after it opens nothing', () => {
    expect(foldCalls([dialed, ended])).toBeNull();
    expect(foldCalls([dialed, ended, adopted])).toBeNull();
  });

  it('declares the player, indexed with the provider', () => {
    expect(openCallsProjection.collection.fields.player).toBe('string');
    expect(openCallsProjection.collection.indexes).toContainEqual(['provider', 'player']);
    expect(openCallsProjection.eventTypes).toContain('CallAdopted');
  });
});

describe('open chats projection', () => {
  const dispatched: ChatEvent = {
    type: 'ChatDispatched',
    data: { messageId: 'm1', at: t0, provider: 'builtin', player: 'a' },
  };
  const adopted: ChatEvent = { type: 'ChatAdopted', data: { messageId: 'm1', at: t1, player: 'b', from: 'a' } };
  const ended: ChatEvent = {
    type: 'ChatEnded',
    data: { messageId: 'm1', at: t1, status: 'Read', reason: 'completed', disposition: null, summary: '' },
  };

  it('keeps the player of the dispatch, then of each adoption; none (null) for an old dispatch', () => {
    expect(foldChats([dispatched])).toEqual({ id: 'm1', provider: 'builtin', dispatchedAt: t0, player: 'a' });
    expect(foldChats([dispatched, adopted])).toMatchObject({ player: 'b', dispatchedAt: t0 });
    const legacy: ChatEvent = { type: 'ChatDispatched', data: { messageId: 'm1', at: t0, provider: 'builtin' } };
    expect(foldChats([legacy])).toMatchObject({ player: null });
  });

  it('removes the message at its end; an adoption after it opens nothing', () => {
    expect(foldChats([dispatched, ended])).toBeNull();
    expect(foldChats([dispatched, ended, adopted])).toBeNull();
  });

  it('declares the player, indexed with the provider', () => {
    expect(openChatsProjection.collection.fields.player).toBe('string');
    expect(openChatsProjection.collection.indexes).toContainEqual(['provider', 'player']);
  });
});
