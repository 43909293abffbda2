import { Type } from '@sinclair/typebox';

const id = Type.String({ minLength: 1, maxLength: 200 });
const ids = Type.Array(id, { maxItems: 100_000 });
const oneOrMany = Type.Union([
  Type.String({ minLength: 1, maxLength: 100 }),
  Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 100 }),
]);

/** Spec 4.11's customer filters, shared by the initiate-calls and initiate-chat bodies. */
export const CustomerFiltersSchema = Type.Object({
  ids: Type.Optional(ids),
  exclude_ids: Type.Optional(ids),
  payment_status: Type.Optional(oneOrMany),
  language: Type.Optional(oneOrMany),
  custom: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 100 }), oneOrMany)),
});

export const InitiateCallsBody = Type.Object({
  agentId: id,
  /** A disposition or group; absent: the campaign's disposition group. */
  dispositionId: Type.Optional({
    ...id,
    description: "A disposition or a group the agent picks from; absent: the campaign's dispositionGroupId",
  }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  filters: Type.Optional(CustomerFiltersSchema),
});
