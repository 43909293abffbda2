import { campaignDecider, type CampaignEvent } from '../../../domain/campaigns/campaign';
import { nextOpening, DEFAULT_CALLING_HOURS } from '../../../domain/campaigns/schedule';
import { organizationDecider, type OrganizationEvent } from '../../../domain/organizations/organization';
import { specFor } from '../../support/decider-spec';

const at = '2026-03-01T10:00:00.000Z';
const campaigns = specFor(campaignDecider);
const organizations = specFor(organizationDecider);
const details = {
  name: 'March EMI',
  description: '',
  language: null,
  agentId: null,
  dispositionGroupId: null,
  startDate: null,
  endDate: null,
};
const create = {
  type: 'CreateCampaign' as const,
  campaignId: 'c1',
  organizationId: 'o1',
  organizationType: 'collection' as const,
  campaignType: 'emi' as const,
  at,
  ...details,
};
const created: CampaignEvent = {
  type: 'CampaignCreated',
  data: { campaignId: 'c1', organizationId: 'o1', campaignType: 'emi', at, ...details },
};
const collection = DEFAULT_CALLING_HOURS.collection;

describe('campaign schedule: calling hours a campaign cannot widen', () => {
  it('takes a window inside the calling hours', () =>
    campaigns
      .given([])
      .when({ ...create, startTime: '09:00', endTime: '18:00', timezone: 'Asia/Dubai' })
      .then([
        {
          ...created,
          data: { ...created.data, startTime: '09:00', endTime: '18:00', timezone: 'Asia/Dubai' },
        } as CampaignEvent,
      ]));

  it('refuses at creation a window outside the hours of a collection organization (RBI: 08:00 to 19:00)', () =>
    campaigns
      .given([])
      .when({ ...create, startTime: '07:30', endTime: '19:30' })
      .thenFails('invalid', 'Validation failed', {
        errors: [
          "startTime 07:30 is before the calling hours of this collection organization (08:00 to 19:00, the customer's local time)",
          "endTime 19:30 is after the calling hours of this collection organization (08:00 to 19:00, the customer's local time)",
        ],
      }));

  it('judges by the hours the organization was given, and a lead campaign by TRAI 09:00 to 21:00', () => {
    campaigns
      .given([])
      .when({ ...create, startTime: '08:00', callingHours: { start: '10:00', end: '17:00' } })
      .thenFails('invalid', 'Validation failed', {
        errors: [
          "startTime 08:00 is before the calling hours of this collection organization (10:00 to 17:00, the customer's local time)",
        ],
      });
    campaigns
      .given([])
      .when({
        ...create,
        organizationType: 'lead_generation',
        campaignType: 'lead',
        startTime: '08:30',
        endTime: '20:30',
      })
      .thenFails('invalid', 'Validation failed', {
        errors: [
          "startTime 08:30 is before the calling hours of this lead generation organization (09:00 to 21:00, the customer's local time)",
        ],
      });
  });

  it('refuses an unknown time zone and a window that ends before it starts', () =>
    campaigns
      .given([])
      .when({ ...create, startTime: '15:00', endTime: '10:00', timezone: 'Mars/Olympus' })
      .thenFails('invalid', 'Validation failed', {
        errors: ['endTime must be after startTime', 'timezone Mars/Olympus is not an IANA time zone'],
      }));

  it('refuses at update a window that would widen the hours, and lets other fields change', () => {
    campaigns
      .given([created])
      .when({ type: 'UpdateCampaign', organizationId: 'o1', changes: { endTime: '20:00' }, at })
      .thenFails('invalid', 'Validation failed', {
        errors: [
          "endTime 20:00 is after the calling hours of this collection organization (08:00 to 19:00, the customer's local time)",
        ],
      });
    campaigns
      .given([created])
      .when({
        type: 'UpdateCampaign',
        organizationId: 'o1',
        changes: { name: 'April' },
        callingHours: { start: '10:00', end: '11:00' },
        at,
      })
      .then([{ type: 'CampaignUpdated', data: { campaignId: 'c1', changes: { name: 'April' }, at } }]);
  });
});

describe('organization calling hours', () => {
  const registered: OrganizationEvent = {
    type: 'OrganizationRegistered',
    data: { organizationId: 'o1', name: 'Acme', organizationType: 'collection', credits: 1, concurrencyLimit: 1, at },
  };
  it('sets hours that start before they end', () => {
    organizations
      .given([registered])
      .when({ type: 'SetCallingHours', callingHours: { start: '09:00', end: '18:00' }, at })
      .then([{ type: 'CallingHoursSet', data: { callingHours: { start: '09:00', end: '18:00' }, at } }]);
    organizations
      .given([registered])
      .when({ type: 'SetCallingHours', callingHours: { start: '18:00', end: '09:00' }, at })
      .thenFails('invalid', 'Validation failed', { errors: ['calling hours must start before they end'] });
  });
});

describe('when a customer may be called', () => {
  const ist = 'Asia/Kolkata';
  it('is open inside the window and closed at 19:00 IST until 08:00 the next day', () => {
    expect(nextOpening({ startDate: null, endDate: null }, collection, ist, new Date('2026-03-02T13:25:00Z'))).toEqual({
      open: true,
    });
    // 19:00 IST is 13:30 UTC; 08:00 IST the next day is 02:30 UTC.
    expect(nextOpening({ startDate: null, endDate: null }, collection, ist, new Date('2026-03-02T13:30:00Z'))).toEqual({
      open: false,
      at: '2026-03-03T02:30:00.000Z',
      reason: 'outside_window',
    });
  });

  it("follows the customer's zone, across a clock change", () => {
    // 08:00 in New York on 8 March 2026 is after the switch to daylight time: 12:00 UTC.
    expect(
      nextOpening({ startDate: null, endDate: null }, collection, 'America/New_York', new Date('2026-03-08T05:00:00Z')),
    ).toEqual({ open: false, at: '2026-03-08T12:00:00.000Z', reason: 'outside_window' });
  });

  it('narrows to the campaign window, skips blackout dates and waits for startDate', () => {
    const schedule = {
      startDate: '2026-03-05',
      endDate: null,
      startTime: '10:00',
      endTime: '12:00',
      blackoutDates: ['2026-03-05'],
    };
    expect(nextOpening(schedule, collection, ist, new Date('2026-03-02T13:00:00Z'))).toEqual({
      open: false,
      at: '2026-03-06T04:30:00.000Z',
      reason: 'outside_window',
    });
  });

  it('never opens again once endDate has passed', () =>
    expect(
      nextOpening({ startDate: null, endDate: '2026-03-02' }, collection, ist, new Date('2026-03-02T14:00:00Z')),
    ).toEqual({ open: false, at: null, reason: 'end_date_passed' }));
});
