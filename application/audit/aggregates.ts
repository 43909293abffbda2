/**
 * Which aggregate a stream id names, and so which decider folds it and who owns it: the one registry
 * the stream histories and the states at a point in time read (docs/audit.md). A stream no entry names
 * (a snapshot, a process's failures) is not an aggregate's history, and no organization reads it.
 */
import { pacingDecider } from '../../domain/campaigns/pacing';
import { agentDecider } from '../../domain/agents/agent';
import { blacklistDecider } from '../../domain/blacklist/blacklist';
import { callDecider } from '../../domain/calls/call';
import { campaignDecider } from '../../domain/campaigns/campaign';
import { chatDecider } from '../../domain/chats/chat';
import { templateDecider } from '../../domain/chats/template';
import { customerDecider } from '../../domain/customers/customer';
import type { Decider, DomainEvent } from '../../domain/shared/decider';
import { catalogDecider } from '../../domain/dispositions/catalog';
import { inventoryDecider } from '../../domain/numbers/inventory';
import { phoneNumberDecider } from '../../domain/numbers/owned-number';
import { organizationDecider } from '../../domain/organizations/organization';
import { privacyDecider } from '../../domain/privacy/erasure';
import { providerAccountDecider } from '../../domain/providers/provider-account';
import { webhookDeliveryDecider } from '../../domain/webhooks/webhook-delivery';
import { webhookSettingsDecider } from '../../domain/webhooks/webhook-settings';
import { workflowRunDecider } from '../../domain/workflows/workflow-run';
import { workflowDecider } from '../../domain/workflows/workflow';

/** A decider seen from outside: the audit folds recorded events into it, and decides nothing. */
export type AnyDecider = Pick<Decider<never, DomainEvent, unknown>, 'initialState' | 'evolve'>;

/**
 * `owner`: how the owning organization is found. `id`: the stream is one organization's by its id
 * (`blacklist-{organizationId}`), whoever recorded its events (the admin API registers organizations).
 * `first-event`: the organization named by the metadata of the stream's first event, the one that
 * created the aggregate (its deciders never let another organization change it afterwards); a stream
 * whose first event names none (the providers' number inventory) is no organization's.
 */
export type Aggregate = {
  name: string;
  /** The stream id's prefix, as the aggregate's stream id helper writes it. */
  prefix: string;
  decider: AnyDecider;
  owner: 'id' | 'first-event';
};

const asAny = <C, E extends DomainEvent, S>(decider: Decider<C, E, S>): AnyDecider => decider as unknown as AnyDecider;

/** Every aggregate's stream (docs/architecture.md, "Aggregates and their boundaries"). */
export const AGGREGATES: readonly Aggregate[] = [
  { name: 'organization', prefix: 'organization-', decider: asAny(organizationDecider), owner: 'id' },
  { name: 'dispositionCatalog', prefix: 'dispositionCatalog-', decider: asAny(catalogDecider), owner: 'id' },
  { name: 'blacklist', prefix: 'blacklist-', decider: asAny(blacklistDecider), owner: 'id' },
  { name: 'webhookSettings', prefix: 'webhookSettings-', decider: asAny(webhookSettingsDecider), owner: 'id' },
  // What was erased, by ids and counts, and the retention: never the personal data itself (docs/privacy.md).
  { name: 'privacy', prefix: 'privacy-', decider: asAny(privacyDecider), owner: 'id' },
  { name: 'campaign', prefix: 'campaign-', decider: asAny(campaignDecider), owner: 'first-event' },
  { name: 'campaignPacing', prefix: 'campaign-pacing-', decider: asAny(pacingDecider), owner: 'first-event' },
  { name: 'customer', prefix: 'customer-', decider: asAny(customerDecider), owner: 'first-event' },
  { name: 'agent', prefix: 'agent-', decider: asAny(agentDecider), owner: 'first-event' },
  { name: 'numberInventory', prefix: 'numberInventory-', decider: asAny(inventoryDecider), owner: 'first-event' },
  { name: 'phoneNumber', prefix: 'phoneNumber-', decider: asAny(phoneNumberDecider), owner: 'first-event' },
  // Its events name the secrets' reference and show them masked, never the secrets (docs/providers.md).
  {
    name: 'providerAccount',
    prefix: 'providerAccount-',
    decider: asAny(providerAccountDecider),
    owner: 'first-event',
  },
  { name: 'call', prefix: 'call-', decider: asAny(callDecider), owner: 'first-event' },
  { name: 'chatTemplate', prefix: 'chatTemplate-', decider: asAny(templateDecider), owner: 'first-event' },
  { name: 'chat', prefix: 'chat-', decider: asAny(chatDecider), owner: 'first-event' },
  { name: 'workflow', prefix: 'workflow-', decider: asAny(workflowDecider), owner: 'first-event' },
  { name: 'workflowRun', prefix: 'workflow-run-', decider: asAny(workflowRunDecider), owner: 'first-event' },
  { name: 'webhookDelivery', prefix: 'webhookDelivery-', decider: asAny(webhookDeliveryDecider), owner: 'first-event' },
];

/** The longest prefix first, so `workflow-run-…` is a run and not a workflow whose id starts with `run-`. */
const BY_LONGEST_PREFIX = [...AGGREGATES].sort((a, b) => b.prefix.length - a.prefix.length);

/** The aggregate whose stream `streamId` is, with the id after its prefix; null for any other stream. */
export function aggregateOf(streamId: string): { aggregate: Aggregate; id: string } | null {
  const aggregate = BY_LONGEST_PREFIX.find((a) => streamId.startsWith(a.prefix) && streamId.length > a.prefix.length);
  return aggregate ? { aggregate, id: streamId.slice(aggregate.prefix.length) } : null;
}
