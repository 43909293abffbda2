/**
 * JSON Schema validation with ajv. Each request body has one TypeBox schema: it validates, types the
 * handler's input, and feeds the OpenAPI document. Error strings name the field, e.g.
 * `data.loan_id is required`.
 */
import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { Static, TSchema } from '@sinclair/typebox';
import { validationFailed } from './errors';

const ajv = new Ajv({ allErrors: true, coerceTypes: false, useDefaults: false, strict: false });
addFormats(ajv);

const compiled = new WeakMap<TSchema, ReturnType<typeof ajv.compile>>();

export function validate<S extends TSchema>(schema: S, value: unknown, root = ''): Static<S> {
  let check = compiled.get(schema);
  if (!check) {
    check = ajv.compile(schema);
    compiled.set(schema, check);
  }
  if (check(value)) return value as Static<S>;
  throw validationFailed(formatErrors(check.errors ?? [], root));
}

export function formatErrors(errors: readonly ErrorObject[], root = ''): string[] {
  // A failed anyOf/oneOf is reported once ("x is not valid"), not once per alternative it tried.
  const unions = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').map((e) => e.schemaPath);
  const kept = errors.filter((e) => !unions.some((u) => e.schemaPath.startsWith(`${u}/`)));
  return [...new Set(kept.map((e) => formatError(e, root)))];
}

function fieldPath(instancePath: string, root: string): string {
  const parts = instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const path = parts.reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), root);
  return path;
}

function formatError(error: ErrorObject, root: string): string {
  const path = fieldPath(error.instancePath, root);
  const subject = path || 'body';
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${path ? `${path}.` : ''}${String(p.missingProperty)} is required`;
    case 'type':
      return `${subject} must be ${article(String(p.type))}`;
    case 'minLength':
      return p.limit === 1 ? `${subject} must not be empty` : `${subject} must be at least ${String(p.limit)} characters`;
    case 'maxLength':
      return `${subject} must be at most ${String(p.limit)} characters`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `${subject} must be ${String(p.comparison)} ${String(p.limit)}`;
    case 'minItems':
      return p.limit === 1 ? `${subject} must be a non-empty array` : `${subject} must have at least ${String(p.limit)} items`;
    case 'maxItems':
      return `${subject} must have at most ${String(p.limit)} items`;
    case 'enum':
      return `${subject} must be one of ${(p.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'const':
      return `${subject} must be ${JSON.stringify(p.allowedValue)}`;
    case 'pattern':
      return `${subject} has an invalid format`;
    case 'format':
      return `${subject} must be a valid ${String(p.format)}`;
    case 'additionalProperties':
      return `${subject} must not contain ${String(p.additionalProperty)}`;
    case 'anyOf':
    case 'oneOf':
      return `${subject} is not valid`;
    default:
      return `${subject} ${error.message ?? 'is not valid'}`;
  }
}

const article = (type: string) => (type === 'integer' ? 'an integer' : type === 'object' || type === 'array' ? `an ${type}` : `a ${type}`);
