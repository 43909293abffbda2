/**
 * Request bodies of the customer routes. The record under `data` (or each of `records`) is checked by
 * the domain (domain/customers/record.ts): its shape depends on the organization type, and a bulk add
 * reports invalid records one by one instead of refusing the request.
 */
import { Type } from '@sinclair/typebox';

export const MAX_BULK_RECORDS = 10_000;

/** Open: a record keeps the fields it carries beyond spec 2.7's (decisions.md section 6). */
export const CustomerRecordSchema = Type.Object(
  {},
  {
    additionalProperties: true,
    description: 'Customer record (spec 2.7); its structure follows the organization type',
  },
);
const campaignId = Type.String({ minLength: 1, maxLength: 200 });
const followUp = {
  initiateCall: Type.Optional(Type.Boolean()),
  callConfig: Type.Optional(
    Type.Object({
      agentId: Type.String({ minLength: 1, maxLength: 200 }),
      dispositionId: Type.String({ minLength: 1, maxLength: 200 }),
    }),
  ),
  useWorkflow: Type.Optional(Type.Boolean()),
  /** Ours: the workflow `useWorkflow` runs, when not the campaign's own. */
  workflowId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
};

export const AddCustomerBody = Type.Object({ campaignId, data: CustomerRecordSchema, ...followUp });
export const BulkAddCustomersBody = Type.Object({
  campaignId,
  records: Type.Array(Type.Unknown(), { minItems: 1, maxItems: MAX_BULK_RECORDS }),
  ...followUp,
});
export const UpdateCustomerBody = Type.Object({
  campaignId,
  loan_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  lead_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  data: Type.Object(
    {},
    { additionalProperties: true, description: 'Fields to change (at least one); null removes an optional field' },
  ),
});
