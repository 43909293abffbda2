/**
 * A customer of a campaign. One stream per campaign and customer key (`loan_id` or `lead_id`): the
 * first event of a stream is appended only if the stream does not exist yet, so the event store itself
 * keeps keys unique within a campaign, across concurrent requests and replicas.
 */
import { canonicalJson } from '../shared/canonical-json';
import { assertNever, type Decider } from '../shared/decider';
import { conflict, invalid, notFound } from '../shared/errors';
import type { OrganizationType } from '../organizations/organization';
import { keyFieldOf, mergeRecord, recordErrors, type CustomerRecord } from './record';

export const customerStreamId = (campaignId: string, customerId: string) => `customer-${campaignId}-${customerId}`;

export const CUSTOMER_NOT_FOUND = 'Customer not found';
export const customerExists = (type: OrganizationType) =>
  `Customer with this ${keyFieldOf(type)} already exists in this campaign`;

export type CustomerState =
  | { status: 'none' }
  | {
      status: 'active';
      campaignId: string;
      customerId: string;
      organizationId: string;
      organizationType: OrganizationType;
      record: CustomerRecord;
      /** The request that added the customer, when it had an origin (an Idempotency-Key), and the record it added. */
      addedBy?: { origin: string; record: CustomerRecord };
    };

export type CustomerCommand =
  | {
      type: 'AddCustomer';
      campaignId: string;
      customerId: string;
      organizationId: string;
      organizationType: OrganizationType;
      record: CustomerRecord;
      at: string;
      /** What names the request across its runs (RequestContext.origin): a second run adds nothing more. */
      origin?: string;
    }
  /** `changes`: fields to set; a field set to null is removed. */
  | { type: 'UpdateCustomer'; organizationId: string; changes: CustomerRecord; at: string };

export type CustomerEvent =
  | {
      type: 'CustomerAdded';
      data: {
        campaignId: string;
        customerId: string;
        organizationId: string;
        organizationType: OrganizationType;
        record: CustomerRecord;
        at: string;
        origin?: string;
      };
    }
  | { type: 'CustomerUpdated'; data: { campaignId: string; customerId: string; changes: CustomerRecord; at: string } };

export const customerEventTypes = [
  'CustomerAdded',
  'CustomerUpdated',
] as const satisfies readonly CustomerEvent['type'][];

export function decide(command: CustomerCommand, state: CustomerState): CustomerEvent[] {
  switch (command.type) {
    case 'AddCustomer': {
      if (state.status !== 'none') {
        // The same request run again (after a crash cut its first run) finds its own add: nothing more.
        if (sameAdd(state, command)) return [];
        throw conflict(customerExists(command.organizationType));
      }
      const keyField = keyFieldOf(command.organizationType);
      const errors = recordErrors(command.organizationType, command.record, 'data.');
      if (command.record[keyField] !== command.customerId) errors.push(`data.${keyField} must be the customer id`);
      if (errors.length > 0) throw invalid('Validation failed', { errors });
      const { type: _type, ...data } = command;
      return [{ type: 'CustomerAdded', data }];
    }
    case 'UpdateCustomer': {
      if (state.status === 'none' || state.organizationId !== command.organizationId)
        throw notFound(CUSTOMER_NOT_FOUND);
      const keyField = keyFieldOf(state.organizationType);
      if (keyField in command.changes && command.changes[keyField] !== state.customerId)
        throw invalid('Validation failed', { errors: [`data.${keyField} cannot be changed`] });
      const merged = mergeRecord(state.record, command.changes);
      const errors = recordErrors(state.organizationType, merged, 'data.');
      if (errors.length > 0) throw invalid('Validation failed', { errors });
      // Only what really changes is recorded; a change to nothing succeeds without an event.
      const changes = Object.fromEntries(
        Object.entries(command.changes).filter(([field, value]) => !sameValue(state.record[field], value)),
      );
      if (Object.keys(changes).length === 0) return [];
      return [
        {
          type: 'CustomerUpdated',
          data: { campaignId: state.campaignId, customerId: state.customerId, changes, at: command.at },
        },
      ];
    }
    default:
      return assertNever(command);
  }
}

const sameAdd = (
  state: Extract<CustomerState, { status: 'active' }>,
  command: { origin?: string; record: CustomerRecord },
) =>
  command.origin !== undefined &&
  state.addedBy?.origin === command.origin &&
  // Key order aside: the recorded record may be read back with its sealed fields put back after the clear ones.
  canonicalJson(state.addedBy.record) === canonicalJson(command.record);

const sameValue = (current: unknown, next: unknown) =>
  next === null ? current === undefined : canonicalJson(current) === canonicalJson(next);

export function evolve(state: CustomerState, event: CustomerEvent): CustomerState {
  switch (event.type) {
    case 'CustomerAdded': {
      const { at: _at, origin, ...customer } = event.data;
      return {
        status: 'active',
        ...customer,
        ...(origin !== undefined && { addedBy: { origin, record: customer.record } }),
      };
    }
    case 'CustomerUpdated':
      return state.status === 'active' ? { ...state, record: mergeRecord(state.record, event.data.changes) } : state;
    default:
      return assertNever(event);
  }
}

export const customerDecider: Decider<CustomerCommand, CustomerEvent, CustomerState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};
