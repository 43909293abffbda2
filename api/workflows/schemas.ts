/**
 * Request bodies of the workflow routes. A step's fields depend on its `type`, so each step is checked
 * against the schema of its type (one clear message per problem, naming the step), after the body's
 * outline; `CreateWorkflowBody` and `UpdateWorkflowBody`, built on the union of them all, type the
 * handlers and document the routes.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { MAX_STEPS, MAX_WAIT_SECONDS, STEP_TYPES, type StepType } from '../../domain/workflows/steps';
import { HttpError, validationFailed } from '../http/errors';
import { StringEnum } from '../http/schema';
import { validate } from '../http/validation';

const id = Type.String({ minLength: 1, maxLength: 200 });
const stepId = Type.Optional(
  Type.String({ minLength: 1, maxLength: 100, description: 'A name branches can jump to instead of the index' }),
);
const target = Type.Union([Type.Integer({ minimum: 0 }), Type.String({ minLength: 1, maxLength: 100 })], {
  description: "A step's index (from 0) or its id",
});
const seconds = (description: string) => Type.Integer({ minimum: 1, maximum: MAX_WAIT_SECONDS, description });
const closed = { additionalProperties: false };

export const STEP_SCHEMAS = {
  send_chat: Type.Object(
    {
      type: Type.Literal('send_chat'),
      id: stepId,
      templateId: id,
      conversationSettings: Type.Optional(Type.Object({ agentId: id, dispositionId: id }, closed)),
    },
    closed,
  ),
  place_call: Type.Object({ type: Type.Literal('place_call'), id: stepId, agentId: id, dispositionId: id }, closed),
  wait: Type.Object({ type: Type.Literal('wait'), id: stepId, seconds: seconds('Real seconds, 1 to 30 days') }, closed),
  wait_for_outcome: Type.Object(
    {
      type: Type.Literal('wait_for_outcome'),
      id: stepId,
      timeoutSeconds: Type.Optional(seconds('Give up after this many seconds (outcome status "timeout")')),
    },
    closed,
  ),
  branch: Type.Object(
    {
      type: Type.Literal('branch'),
      id: stepId,
      on: StringEnum(['status', 'disposition'] as const),
      cases: Type.Array(Type.Object({ equals: Type.String({ minLength: 1, maxLength: 200 }), goTo: target }, closed), {
        minItems: 1,
        maxItems: 50,
      }),
      otherwise: Type.Optional(target),
    },
    closed,
  ),
  end: Type.Object({ type: Type.Literal('end'), id: stepId }, closed),
} satisfies Record<StepType, TSchema>;

const name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
const stepsOutline = Type.Array(Type.Object({ type: StringEnum(STEP_TYPES) }, { additionalProperties: true }), {
  minItems: 1,
  maxItems: MAX_STEPS,
});
const CreateOutline = Type.Object({ name, steps: stepsOutline }, closed);
const UpdateOutline = Type.Object({ name: Type.Optional(name), steps: Type.Optional(stepsOutline) }, closed);

const steps = Type.Array(Type.Union(Object.values(STEP_SCHEMAS)), { minItems: 1, maxItems: MAX_STEPS });
export const CreateWorkflowBody = Type.Object({ name, steps }, closed);
export type CreateWorkflowInput = Static<typeof CreateWorkflowBody>;
/** At least one of the two; the steps given replace the whole list (runs already started keep theirs). */
export const UpdateWorkflowBody = Type.Object(
  { name: Type.Optional(name), steps: Type.Optional(steps) },
  { ...closed, minProperties: 1 },
);
export type UpdateWorkflowInput = Static<typeof UpdateWorkflowBody>;

/** The body, or 400 `Validation failed` listing every problem (`steps[1].seconds must be >= 1`). */
export function validateWorkflowBody(body: unknown): CreateWorkflowInput {
  checkSteps(validate(CreateOutline, body).steps);
  return body as CreateWorkflowInput;
}

/** An update's body: `name`, `steps` or both, each checked as on create. */
export function validateWorkflowUpdate(body: unknown): UpdateWorkflowInput {
  const outline = validate(UpdateOutline, body);
  if (outline.name === undefined && outline.steps === undefined) throw validationFailed(['name or steps is required']);
  if (outline.steps !== undefined) checkSteps(outline.steps);
  return body as UpdateWorkflowInput;
}

/** Each step against the schema of its type, every problem of every step in one answer. */
function checkSteps(outline: readonly { type: StepType }[]): void {
  const errors: string[] = [];
  outline.forEach((step, i) => {
    try {
      validate(STEP_SCHEMAS[step.type], step, `steps[${i}]`);
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      errors.push(...((error.extra.errors as string[] | undefined) ?? [error.message]));
    }
  });
  if (errors.length > 0) throw validationFailed(errors);
}
