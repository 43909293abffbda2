import { callDecider, type CallEvent, type CallTarget } from '../../../../domain/calls/call';
import { campaignDecider, type CampaignEvent, type CampaignState } from '../../../../domain/campaigns/campaign';
import { customerTimezone, gate, PAUSED_RECHECK_MS } from '../../../../domain/campaigns/gate';
import { DEFAULT_CALLING_HOURS } from '../../../../domain/campaigns/schedule';
import { specFor } from '../../../support/decider-spec';

const spec = specFor(callDecider);
const at = '2027-03-02T13:30:30.000Z';
const eight = '2027-03-03T02:30:00.000Z';
const target: CallTarget = {
  organizationId: 'o1',
  campaignId: 'c1',
  campaignName: 'March EMI',
  customerKeyField: 'loan_id',
  customerKey: 'L-1',
  customerName: 'Asha Rao',
  to: '+919812345678',
  from: '+918000000001',
  agentId: 'a1',
  dispositionId: 'd1',
  language: 'hi',
};
const queued: CallEvent = { type: 'CallQueued', data: { callId: 'k1', at, ...target } };
const scheduled: CallEvent = {
  type: 'CallScheduled',
  data: { callId: 'k1', campaignId: 'c1', scheduledFor: eight, reason: 'outside_window', at },
};
const blacklist = { listed: false, revision: -1 };

describe('a call that waits for its window', () => {
  it('is scheduled once for a time; the same time again records nothing', () => {
    spec
      .given([queued])
      .when({ type: 'ScheduleCall', scheduledFor: eight, reason: 'outside_window', at })
      .then([scheduled]);
    spec
      .given([queued, scheduled])
      .when({ type: 'ScheduleCall', scheduledFor: eight, reason: 'outside_window', at })
      .then([]);
  });

  it('is dialed from Scheduled once, and a dialed call is not scheduled again', () => {
    const dialed: CallEvent = {
      type: 'CallDialed',
      data: { callId: 'k1', provider: 'builtin', at: eight, player: 'r1', blacklistRevision: -1 },
    };
    spec
      .given([queued, scheduled])
      .when({ type: 'DialCall', provider: 'builtin', at: eight, player: 'r1', blacklist })
      .then([dialed]);
    spec
      .given([queued, scheduled, dialed])
      .when({ type: 'DialCall', provider: 'builtin', at: eight, player: 'r2', blacklist })
      .then([]);
    spec
      .given([queued, scheduled, dialed])
      .when({ type: 'ScheduleCall', scheduledFor: eight, reason: 'campaign_paused', at })
      .then([]);
  });
});

describe('the gate before any provider', () => {
  const created: CampaignEvent = {
    type: 'CampaignCreated',
    data: {
      campaignId: 'c1',
      organizationId: 'o1',
      campaignType: 'emi',
      at,
      name: 'March',
      description: '',
      language: null,
      agentId: null,
      dispositionGroupId: null,
      startDate: null,
      endDate: null,
    },
  };
  const fold = (events: CampaignEvent[]): CampaignState =>
    events.reduce(campaignDecider.evolve, campaignDecider.initialState());
  const hours = DEFAULT_CALLING_HOURS.collection;
  const now = new Date(at);

  it('holds a call outside the window until it opens, and lets one inside it go', () => {
    expect(gate(fold([created]), hours, 'Asia/Kolkata', now)).toEqual({
      go: false,
      until: eight,
      reason: 'outside_window',
    });
    expect(gate(fold([created]), hours, 'Asia/Dubai', now)).toEqual({ go: true });
  });

  it('holds the calls of a paused campaign, and cancels those of a deleted or ended one', () => {
    const paused: CampaignEvent = { type: 'CampaignPaused', data: { campaignId: 'c1', at } };
    expect(gate(fold([created, paused]), hours, 'Asia/Dubai', now)).toEqual({
      go: false,
      until: new Date(now.getTime() + PAUSED_RECHECK_MS).toISOString(),
      reason: 'campaign_paused',
    });
    const deleted: CampaignEvent = { type: 'CampaignDeleted', data: { campaignId: 'c1', at } };
    expect(gate(fold([created, deleted]), hours, 'Asia/Dubai', now)).toMatchObject({ cancel: 'campaign_deleted' });
    const ended: CampaignEvent = {
      type: 'CampaignUpdated',
      data: { campaignId: 'c1', changes: { endDate: '2027-03-01' }, at },
    };
    expect(gate(fold([created, ended]), hours, 'Asia/Dubai', now)).toMatchObject({ cancel: 'campaign_ended' });
  });

  it("calls a customer in the record's own zone when it is an IANA name", () => {
    expect(customerTimezone(null, { timezone: 'Asia/Tokyo' })).toBe('Asia/Tokyo');
    expect(customerTimezone('Asia/Dubai', { timezone: 'Nowhere/Else' })).toBe('Asia/Dubai');
    expect(customerTimezone(null, {})).toBe('Asia/Kolkata');
  });
});
