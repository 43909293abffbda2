/**
 * The read models of retention (docs/privacy.md, "Retention"): the organizations' retentions, and one
 * candidate per ended call or chat that an erasure marks erased, each event applied twice changing nothing.
 */
import type { RecordedEvent } from '../../../application/ports/event-store';
import type { ConversationContentErased, PersonalDataErased } from '../../../domain/privacy/erasure';
import {
  retentionCandidateId,
  retentionCandidatesProjection as candidates,
  type RetentionCandidateDocument,
} from '../../../projections/privacy/retention-candidates';
import { retentionSettingsProjection as settings } from '../../../projections/privacy/retention-settings';
import type { AnyProjection } from '../../../projections/projection';
import { recordedEvent } from '../../support/events';

const ended = '2026-03-01T10:05:00.000Z';
const conversations = { recordingIds: [], transcriptIds: [], auditPositions: [] };

const callEnded = { type: 'CallEnded', data: { callId: 'k1', at: ended, status: 'Completed', transcript: [] } };
const chatEnded = { type: 'ChatEnded', data: { messageId: 'm1', at: ended, status: 'Read', summary: 's' } };
const media = { type: 'CallMediaAttached', data: { callId: 'k1', at: ended, recordingId: 'r2' } };
const contentErased = (organizationId: string): ConversationContentErased => ({
  type: 'ConversationContentErased',
  data: { organizationId, calls: ['k1'], chats: ['m1'], ...conversations, reason: 'retention', at: ended },
});
const subjectErased: PersonalDataErased = {
  type: 'PersonalDataErased',
  data: {
    organizationId: 'o1',
    subjectIds: ['s1'],
    lookup: 'phone',
    customers: [],
    calls: ['k1'],
    chats: [],
    webhookDeliveries: [],
    kept: [],
    ...conversations,
    at: ended,
  },
};

/** Every document of the projection after the events, each event applied twice (a replay). */
function project(projection: AnyProjection, events: readonly { type: string; data: unknown }[], organizationId = 'o1') {
  const docs = new Map<string, unknown>();
  events.forEach((event, i) => {
    const recorded: RecordedEvent = recordedEvent(event, i, { organizationId });
    for (let twice = 0; twice < 2; twice++)
      for (const id of projection.documentIds(recorded)) {
        const next = projection.evolve(id, docs.get(id) ?? null, recorded);
        if (next === null) docs.delete(id);
        else docs.set(id, next);
      }
  });
  return docs;
}

const candidate = (kind: 'call' | 'chat', ref: string, erased: boolean): RetentionCandidateDocument => ({
  id: retentionCandidateId(kind, ref),
  organizationId: 'o1',
  kind,
  ref,
  endedAt: ended,
  erased,
});

describe('retention settings', () => {
  const set = (days: number | null) => ({ type: 'RetentionSet', data: { organizationId: 'o1', days, at: ended } });

  it('keeps the days of an organization with a retention, and none of one that keeps content for ever', () => {
    expect([...project(settings, [set(30)]).values()]).toEqual([
      { id: 'o1', organizationId: 'o1', days: 30, setAt: ended },
    ]);
    expect(project(settings, [set(30), set(null)]).size).toBe(0);
  });
});

describe('retention candidates', () => {
  it('holds one candidate per ended call and chat, not erased', () => {
    expect([...project(candidates, [callEnded, chatEnded]).values()]).toEqual([
      candidate('call', 'k1', false),
      candidate('chat', 'm1', false),
    ]);
  });

  it('holds nothing of a call still going on', () => {
    expect(project(candidates, [media]).size).toBe(0);
  });

  it("marks the conversations a retention erased, and not another organization's", () => {
    expect([...project(candidates, [callEnded, chatEnded, contentErased('o1')]).values()]).toEqual([
      candidate('call', 'k1', true),
      candidate('chat', 'm1', true),
    ]);
    const theirs = project(candidates, [callEnded, contentErased('o2')]);
    expect([...theirs.values()]).toEqual([candidate('call', 'k1', false)]);
  });

  it("marks a subject's conversations erased (every key of theirs is gone)", () => {
    expect([...project(candidates, [callEnded, subjectErased]).values()]).toEqual([candidate('call', 'k1', true)]);
  });

  it('makes a call a candidate again when media is attached after its erasure (new content)', () => {
    expect([...project(candidates, [callEnded, contentErased('o1'), media]).values()]).toEqual([
      candidate('call', 'k1', false),
    ]);
    // Media before the erasure changes nothing.
    expect([...project(candidates, [callEnded, media]).values()]).toEqual([candidate('call', 'k1', false)]);
  });

  it('keeps the first end of a conversation', () => {
    const later = { ...callEnded, data: { ...callEnded.data, at: '2026-03-02T00:00:00.000Z' } };
    expect([...project(candidates, [callEnded, later]).values()]).toEqual([candidate('call', 'k1', false)]);
  });
});
