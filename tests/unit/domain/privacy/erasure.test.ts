import {
  privacyDecider,
  type ConversationContentErased,
  type PrivacyCommand,
  type PersonalDataErased,
  type RetentionSet,
} from '../../../../domain/privacy/erasure';
import { specFor } from '../../../support/decider-spec';

const at = '2026-03-01T10:00:00.000Z';
const spec = specFor(privacyDecider);

const erasure: PersonalDataErased['data'] = {
  organizationId: 'o1',
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
const erase: PrivacyCommand = { type: 'EraseSubjects', ...erasure };
const erased: PersonalDataErased = { type: 'PersonalDataErased', data: erasure };

describe('erasure of personal data', () => {
  it("records the subjects' erasure with the documents it touches", () => {
    spec.given([]).when(erase).then([erased]);
  });

  it('records nothing when every subject named was erased already', () => {
    spec.given([erased]).when(erase).then([]);
  });

  it('records an erasure naming a new subject beside an erased one', () => {
    const again = { ...erase, subjectIds: ['s1', 's2'] };
    spec
      .given([erased])
      .when(again)
      .then([{ type: 'PersonalDataErased', data: { ...erasure, subjectIds: ['s1', 's2'] } }]);
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
      const state = [erased, retentionSet(7)].reduce(
        (s, e) => privacyDecider.evolve(s, e),
        privacyDecider.initialState(),
      );
      expect(state).toEqual({ erasedSubjects: new Set(['s1']), retentionDays: 7 });
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
