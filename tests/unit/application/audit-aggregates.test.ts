import { AGGREGATES, aggregateOf } from '../../../application/audit/aggregates';
import { plainJson } from '../../../application/audit/plain-json';
import { snapshotStreamId } from '../../../application/snapshots';
import { agentStreamId } from '../../../domain/agents/agent';
import { blacklistStreamId } from '../../../domain/blacklist/blacklist';
import { callStreamId } from '../../../domain/calls/call';
import { campaignStreamId } from '../../../domain/campaigns/campaign';
import { campaignPacingStreamId } from '../../../domain/campaigns/pacing';
import { chatStreamId } from '../../../application/chats/chat-sending';
import { chatTemplateStreamId } from '../../../domain/chats/template';
import { customerStreamId } from '../../../domain/customers/customer';
import { catalogDecider, catalogStreamId } from '../../../domain/dispositions/catalog';
import { inventoryStreamId } from '../../../domain/numbers/inventory';
import { phoneNumberStreamId } from '../../../domain/numbers/owned-number';
import { organizationStreamId } from '../../../domain/organizations/organization';
import { privacyStreamId } from '../../../domain/privacy/erasure';
import { accountClaimStreamId } from '../../../domain/providers/account-claim';
import { providerAccountStreamId } from '../../../domain/providers/provider-account';
import { PersistentMap } from '../../../domain/shared/persistent-map';
import { webhookDeliveryStreamId } from '../../../domain/webhooks/webhook-delivery';
import { webhookSettingsStreamId } from '../../../domain/webhooks/webhook-settings';
import { workflowRunStreamId } from '../../../domain/workflows/workflow-run';
import { workflowStreamId } from '../../../domain/workflows/workflow';

describe('the audit registry of aggregate streams', () => {
  it("names the aggregate of every stream its helper writes, with the id after the aggregate's prefix", () => {
    const id = '0190a5b2-7c3e-7def-8abc-0123456789ab';
    const cases: [string, string, string][] = [
      [organizationStreamId(id), 'organization', id],
      [catalogStreamId(id), 'dispositionCatalog', id],
      [blacklistStreamId(id), 'blacklist', id],
      [webhookSettingsStreamId(id), 'webhookSettings', id],
      [campaignStreamId(id), 'campaign', id],
      [campaignPacingStreamId(id), 'campaignPacing', id],
      [customerStreamId(id, 'L-1'), 'customer', `${id}-L-1`],
      [agentStreamId(id), 'agent', id],
      [inventoryStreamId('builtin'), 'numberInventory', 'builtin'],
      [phoneNumberStreamId('+919812345678'), 'phoneNumber', '919812345678'],
      [providerAccountStreamId(id, 'twilio'), 'providerAccount', `${id}-twilio`],
      [privacyStreamId(id), 'privacy', id],
      [callStreamId(id), 'call', id],
      [chatTemplateStreamId(id), 'chatTemplate', id],
      [chatStreamId(id), 'chat', id],
      [workflowStreamId(id), 'workflow', id],
      [workflowRunStreamId(id), 'workflowRun', id],
      [webhookDeliveryStreamId(id), 'webhookDelivery', id],
    ];
    for (const [stream, name, streamKey] of cases) {
      const found = aggregateOf(stream);
      expect({ stream, name: found?.aggregate.name, id: found?.id }).toEqual({ stream, name, id: streamKey });
    }
    expect(cases.map(([, name]) => name).sort()).toEqual(AGGREGATES.map((a) => a.name).sort());
    // Which organization holds a provider account is no organization's aggregate.
    expect(aggregateOf(accountClaimStreamId('twilio', `AC${'0'.repeat(32)}`))).toBeNull();
  });

  it('names no aggregate for a snapshot, a bare prefix or any other stream', () => {
    for (const stream of [
      snapshotStreamId(organizationStreamId('o-1')),
      snapshotStreamId(campaignStreamId('c-1')),
      'processFailures-call-dispatcher',
      'campaign-',
      'campaign',
      'Campaign-c-1',
      '',
    ])
      expect({ stream, found: aggregateOf(stream) }).toEqual({ stream, found: null });
  });

  it('owns the per-organization streams by their id, every other by its first event', () => {
    const byId = AGGREGATES.filter((a) => a.owner === 'id').map((a) => a.name);
    expect(byId.sort()).toEqual(['blacklist', 'dispositionCatalog', 'organization', 'privacy', 'webhookSettings']);
  });
});

describe('plainJson: a state as plain JSON', () => {
  it('turns maps into objects, persistent maps into objects with sorted keys, sets into arrays, at any depth', () => {
    const state = {
      groups: new Map([
        ['g-2', { name: 'Second', members: new Set(['b', 'a']) }],
        ['g-1', { name: 'First', members: new Set<string>() }],
      ]),
      names: PersistentMap.of([
        ['zeta', 'z'],
        ['alpha', 'a'],
        ['mid', 'm'],
      ]),
      list: [new Map([['k', 1]]), undefined],
      left: undefined,
      count: 3,
      flag: false,
      nothing: null,
    };
    const json = plainJson(state);
    expect(json).toEqual({
      groups: { 'g-2': { name: 'Second', members: ['b', 'a'] }, 'g-1': { name: 'First', members: [] } },
      names: { alpha: 'a', mid: 'm', zeta: 'z' },
      list: [{ k: 1 }, null],
      count: 3,
      flag: false,
      nothing: null,
    });
    expect(Object.keys((json as { groups: object }).groups)).toEqual(['g-2', 'g-1']);
    expect(Object.keys((json as { names: object }).names)).toEqual(['alpha', 'mid', 'zeta']);
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
  });

  it("keeps a `__proto__` key of a customer's record as a member", () => {
    const record = JSON.parse('{"__proto__": {"polluted": true}, "branch": "Pune"}') as unknown;
    const json = plainJson({ record }) as { record: Record<string, unknown> };
    expect(Object.keys(json.record)).toEqual(['__proto__', 'branch']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(json.record)).toBe(Object.prototype);
  });

  it("turns the disposition catalog's folded state into JSON that keeps every entry", () => {
    const at = '2026-05-01T10:00:00.000Z';
    const events = [
      { type: 'DispositionCreated', data: { dispositionId: 'd-2', name: 'Paid', description: '', priority: 1, at } },
      { type: 'DispositionCreated', data: { dispositionId: 'd-1', name: 'Later', description: '', priority: 2, at } },
      {
        type: 'DispositionGroupCreated',
        data: { groupId: 'g-1', name: 'Outcomes', description: '', dispositionIds: ['d-2', 'd-1'], at },
      },
    ] as Parameters<typeof catalogDecider.evolve>[1][];
    const state = events.reduce(catalogDecider.evolve, catalogDecider.initialState());
    // JSON.stringify alone would write a Map as {} and a persistent map as its hash buckets.
    const stringified = JSON.parse(JSON.stringify(state)) as Record<string, Record<string, unknown>>;
    expect(stringified.groups).toEqual({});
    expect(stringified.dispositions).not.toHaveProperty('d-1');
    expect(plainJson(state)).toEqual({
      dispositions: {
        'd-1': { name: 'Later', description: '', priority: 2 },
        'd-2': { name: 'Paid', description: '', priority: 1 },
      },
      groups: { 'g-1': { name: 'Outcomes', description: '', dispositionIds: ['d-2', 'd-1'] } },
      dispositionNames: { later: 'd-1', paid: 'd-2' },
      groupNames: { outcomes: 'g-1' },
    });
  });
});
