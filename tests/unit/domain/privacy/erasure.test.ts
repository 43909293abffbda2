import {
  privacyDecider,
  type ConversationContentErased,
  type PrivacyCommand,
  type PersonalDataErased,
  type PersonalDataErasureCompleted,
  type PersonalDataErasureRequested,
  type PrivacyEvent,
  type RetentionSet,
} from '../../../../domain/privacy/erasure';
import { specFor } from '../../../support/decider-spec';

const at = '2026-03-01T10:00:00.000Z';
const spec = specFor(privacyDecider);

const erasure: PersonalDataErasureRequested['data'] = {
  organizationId: 'o1',
  erasureId: 'e1',
  subjectIds: ['s1'],
  lookup: 'phone',
  customers: [{ campaignId: 'c1', customerKey: 'LN-1' }],
  calls: ['call-1'],
  chats: ['chat-1'],
  recordingIds: ['rec-1'],
  transcriptIds: ['tr-1'],
  auditPositions: [],
  webhookDeliveries: ['d-1'],
  kept: [{ what: 'blacklist entries', why: 'legal obligation' }],
  at,
};
const later = '2026-03-01T10:00:01.000Z';
const erase: PrivacyCommand = { type: 'EraseSubjects', ...erasure };
const requested: PersonalDataErasureRequested = { type: 'PersonalDataErasureRequested', data: erasure };
const record: PrivacyCommand = { type: 'RecordErasure', organizationId: 'o1', erasureId: 'e1', at: later };
const erased: PersonalDataErased = { type: 'PersonalDataErased', data: { ...erasure, at: later } };
const complete: PrivacyCommand = { type: 'CompleteErasure', organizationId: 'o1', erasureId: 'e1', at: later };
const completed: PersonalDataErasureCompleted = {
  type: 'PersonalDataErasureCompleted',
  data: { organizationId: 'o1', erasureId: 'e1', at: later },
};

describe('erasure of personal data', () => {
  it("records the subjects' erasure requested, with the documents it touches", () => {
    spec.given([]).when(erase).then([requested]);
  });

  it('records nothing when every subject named was erased already, or is being erased', () => {
    spec.given([requested]).when(erase).then([]);
    spec.given([requested, erased, completed]).when(erase).then([]);
  });

  it('records an erasure naming a new subject beside an erased one', () => {
    const again = { ...erase, erasureId: 'e2', subjectIds: ['s1', 's2'] };
    spec
      .given([requested, erased, completed])
      .when(again)
      .then([
        { type: 'PersonalDataErasureRequested', data: { ...erasure, erasureId: 'e2', subjectIds: ['s1', 's2'] } },
      ]);
  });

  describe('the steps of an erasure', () => {
    it('records it erased, with all it names, once, after its request', () => {
      spec.given([requested]).when(record).then([erased]);
      spec.given([requested, erased]).when(record).then([]);
      spec.given([]).when(record).then([]);
    });

    it('records it completed once, and only once it is erased', () => {
      spec.given([requested, erased]).when(complete).then([completed]);
      spec.given([requested, erased, completed]).when(complete).then([]);
      spec.given([requested]).when(complete).then([]);
      spec.given([]).when(complete).then([]);
    });

    it('completes nothing for an erasure recorded in one event, before erasures had steps', () => {
      const { erasureId: _id, ...whole } = erasure;
      spec
        .given([{ type: 'PersonalDataErased', data: whole }])
        .when(complete)
        .then([]);
      spec
        .given([{ type: 'PersonalDataErased', data: whole }])
        .when(erase)
        .then([]);
    });

    it('keeps an erasure unfinished from its request until its completion', () => {
      const fold = (events: PrivacyEvent[]) =>
        events.reduce((s, e) => privacyDecider.evolve(s, e), privacyDecider.initialState()).unfinished;
      expect(fold([requested]).get('e1')).toEqual({ data: erasure, erased: false });
      expect(fold([requested, erased]).get('e1')).toEqual({ data: erasure, erased: true });
      expect(fold([requested, erased, completed]).size).toBe(0);
    });
  });

  it('refuses an erasure naming no subject', () => {
    spec
      .given([])
      .when({ ...erase, subjectIds: [] })
      .thenFails('invalid', 'An erasure names at least one subject');
  });

  it("holds no personal data: no phone number and no name among the event's values", () => {
    const values = JSON.stringify(privacyDecider.decide(erase, privacyDecider.initialState()));
    expect(values).not.toMatch(/\d{7,}/);
    expect(Object.keys(erased.data).sort()).toEqual(
      [
        'at',
        'auditPositions',
        'calls',
        'chats',
        'customers',
        'erasureId',
        'kept',
        'lookup',
        'organizationId',
        'recordingIds',
        'subjectIds',
        'transcriptIds',
        'webhookDeliveries',
      ].sort(),
    );
  });

  it('records the content of conversations erased for retention, and nothing for an empty sweep', () => {
    const content: ConversationContentErased['data'] = {
      organizationId: 'o1',
      calls: ['call-1'],
      chats: [],
      recordingIds: [],
      transcriptIds: ['tr-1'],
      auditPositions: [],
      reason: 'retention',
      at,
    };
    spec
      .given([])
      .when({ type: 'EraseConversationContent', ...content })
      .then([{ type: 'ConversationContentErased', data: content }]);
    spec
      .given([])
      .when({ type: 'EraseConversationContent', ...content, calls: [], transcriptIds: [] })
      .then([]);
  });

  describe('retention of conversation content', () => {
    const set = (days: number | null): PrivacyCommand => ({ type: 'SetRetention', organizationId: 'o1', days, at });
    const retentionSet = (days: number | null): RetentionSet => ({
      type: 'RetentionSet',
      data: { organizationId: 'o1', days, at },
    });

    it('records the days conversation content is kept, and a change of them', () => {
      spec
        .given([])
        .when(set(30))
        .then([retentionSet(30)]);
      spec
        .given([retentionSet(30)])
        .when(set(365))
        .then([retentionSet(365)]);
    });

    it('records keeping content for ever (null) once a retention was set, and nothing when it already is', () => {
      spec
        .given([retentionSet(30)])
        .when(set(null))
        .then([retentionSet(null)]);
      spec.given([]).when(set(null)).then([]);
      spec
        .given([retentionSet(30), retentionSet(null)])
        .when(set(null))
        .then([]);
    });

    it('records nothing when the retention is already the one asked for', () => {
      spec
        .given([retentionSet(30)])
        .when(set(30))
        .then([]);
    });

    it('is kept beside the erasures', () => {
      const state = [requested, erased, completed, retentionSet(7)].reduce(
        (s, e) => privacyDecider.evolve(s, e),
        privacyDecider.initialState(),
      );
      expect(state).toEqual({
        erasedSubjects: new Set(['s1']),
        unfinished: new Map(),
        retentionDays: 7,
      });
    });

    it.each([0, -1, 3651, 1.5, Number.NaN])('refuses %p days', (days) => {
      spec
        .given([])
        .when(set(days))
        .thenFails('invalid', 'Validation failed', {
          errors: ['days must be an integer from 1 to 3650, or null'],
        });
    });

    it('accepts the bounds, one day and ten years', () => {
      spec
        .given([])
        .when(set(1))
        .then([retentionSet(1)]);
      spec
        .given([])
        .when(set(3650))
        .then([retentionSet(3650)]);
    });
  });
});
