/**
 * JSON Schema validation with ajv. Each request body has one TypeBox schema: it validates, types the
 * handler's input, and feeds the OpenAPI document. Error strings name the field, e.g.
 * `data.loan_id is required`.
 *
 * One rule for every schema: an object accepts only the properties it declares (`closed`), unless its
 * schema says otherwise (`additionalProperties: true`, as the customer record does for custom fields).
 * A property a client was not meant to set (`organizationId`, `id`, `createdAt`, `status`) is refused
 * with 400 naming it, instead of travelling into a command.
 */
import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { Static, TSchema } from '@sinclair/typebox';
import { clip } from '../../application/clip';
import { validationFailed } from './errors';

const ajv = new Ajv({ allErrors: true, coerceTypes: false, useDefaults: false, strict: false, discriminator: true });
addFormats(ajv);

const compiled = new WeakMap<TSchema, ReturnType<typeof ajv.compile>>();

/** `schema` with `additionalProperties: false` on every object schema that does not decide it itself. */
export function closed<S>(schema: S): S {
  if (Array.isArray(schema)) return schema.map(closed) as S;
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema))
    copy[key] = key === 'enum' || key === 'const' || key === 'default' || key === 'examples' ? value : closed(value);
  const declaresProperties =
    copy.type === 'object' && copy.properties !== undefined && copy.patternProperties === undefined;
  if (declaresProperties && copy.additionalProperties === undefined) copy.additionalProperties = false;
  return copy as S;
}

export function validate<S extends TSchema>(schema: S, value: unknown, root = ''): Static<S> {
  let check = compiled.get(schema);
  if (!check) {
    check = ajv.compile(closed(schema));
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

/** `data`, `records[3]`, `data.name`: an index in brackets, a name after a dot (none first). */
function joinPath(path: string, part: string): string {
  if (/^\d+$/.test(part)) return `${path}[${part}]`;
  return path ? `${path}.${part}` : part;
}

function fieldPath(instancePath: string, root: string): string {
  const parts = instancePath
    .split('/')
    .slice(1)
    .map((p) => clip(p.replace(/~1/g, '/').replace(/~0/g, '~')));
  return parts.reduce(joinPath, root);
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
      return p.limit === 1
        ? `${subject} must not be empty`
        : `${subject} must be at least ${String(p.limit)} characters`;
    case 'maxLength':
      return `${subject} must be at most ${String(p.limit)} characters`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `${subject} must be ${String(p.comparison)} ${String(p.limit)}`;
    case 'minItems':
      return p.limit === 1
        ? `${subject} must be a non-empty array`
        : `${subject} must have at least ${String(p.limit)} items`;
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
      return `${subject} must not contain ${clip(String(p.additionalProperty))}`;
    case 'discriminator':
      return p.error === 'mapping'
        ? `${path ? `${path}.` : ''}${String(p.tag)} is not valid`
        : `${path ? `${path}.` : ''}${String(p.tag)} is required`;
    case 'anyOf':
    case 'oneOf':
      return `${subject} is not valid`;
    default:
      return `${subject} ${error.message ?? 'is not valid'}`;
  }
}

function article(type: string): string {
  if (type === 'integer') return 'an integer';
  return type === 'object' || type === 'array' ? `an ${type}` : `a ${type}`;
}
