import { Type } from '@sinclair/typebox';

const name = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' });
const description = Type.String({ maxLength: 1000 });
const priority = Type.Integer({ minimum: 0, maximum: 1000 });
const ids = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 1000 });

export const CreateDispositionBody = Type.Object({
  name,
  description: Type.Optional(description),
  priority: Type.Optional(priority),
});
export const UpdateDispositionBody = Type.Object(
  { name: Type.Optional(name), description: Type.Optional(description), priority: Type.Optional(priority) },
  { minProperties: 1 },
);
export const CreateGroupBody = Type.Object({
  name,
  description: Type.Optional(description),
  dispositions: Type.Optional(ids),
});
export const UpdateGroupBody = Type.Object(
  { name: Type.Optional(name), description: Type.Optional(description), dispositions: Type.Optional(ids) },
  { minProperties: 1 },
);
export const GroupMembersBody = Type.Object({
  dispositions: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 1000 }),
});
