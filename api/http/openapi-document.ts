/**
 * The OpenAPI 3.1 document, written from the route declarations (route.ts): each operation with its
 * id, security, scope, parameters, body schema (closed, as validation applies it), its success answer
 * and every error answer it may give, in the envelope of spec 7.1 (docs/spec/service-spec.md).
 */
import type { RouteGroup, RouteSpec, Security } from './route';
import { closed } from './validation';

const ERRORS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  402: 'PaymentRequired',
  403: 'Forbidden',
  404: 'NotFound',
  408: 'RequestTimeout',
  409: 'Conflict',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  416: 'RangeNotSatisfiable',
  422: 'UnprocessableEntity',
  429: 'TooManyRequests',
  431: 'RequestHeaderFieldsTooLarge',
  500: 'InternalServerError',
  503: 'ServiceUnavailable',
};

const DESCRIPTIONS: Record<number, string> = {
  400: 'Validation failed: `errors` names each problem',
  401: 'Missing or invalid authorization header',
  402: 'Not enough credits',
  403: 'Missing scope, or a resource of another organization',
  404: 'Not found',
  408: 'The request did not arrive in time',
  409: 'Conflict with existing data, or a request with the same `Idempotency-Key` is still in progress',
  413: 'Request body too large',
  415: 'Content-Type must be application/json',
  416: 'Requested range not satisfiable',
  422: 'The `Idempotency-Key` was used before with a different request body or endpoint',
  429: 'Too many requests',
  431: 'Request headers too large',
  500: 'An unexpected error occurred',
  503: 'Not ready',
};

const SECURITY: Record<Security, unknown[]> = {
  organization: [{ bearerAuth: [] }],
  admin: [{ adminToken: [] }],
  secret: [{ providerSecret: [] }],
  public: [],
};

/** The errors every route of its kind may answer, besides its own. */
function implicitErrors(security: Security, spec: RouteSpec): number[] {
  // Too slow a request, or too large headers, the server answers before any route (http/client-errors.ts).
  const errors = [408, 431, 500];
  if (security !== 'public') errors.push(401);
  // Organizations' requests are rate limited (http/rate-limit.ts), the admin routes' by address.
  if (security === 'organization' || security === 'admin') errors.push(429);
  if (spec.scopes && spec.scopes.length > 0) errors.push(403);
  // Every authenticated route reads a body when one is sent, whether it takes one or not (json-body.ts):
  // not JSON 415, too large 413, not parsable or of a bad shape 400.
  if (spec.body || security !== 'public') errors.push(400, 413, 415);
  return errors;
}

const pascal = (text: string) =>
  text.replace(/(^|[^A-Za-z0-9]+)([A-Za-z0-9])/g, (_m, _sep, c: string) => c.toUpperCase());

/**
 * `schema` with each variant of a tagged union (`Tagged`, api/http/schema.ts) moved to `named`, under
 * `<prefix><tag value>`, and the discriminator mapping each tag value to it: tools select a variant by
 * name only. Validation keeps the variants inline (ajv's discriminator takes them so).
 */
function namedVariants(schema: unknown, prefix: string, named: Record<string, unknown>): unknown {
  if (Array.isArray(schema)) return schema.map((item) => namedVariants(item, prefix, named));
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema))
    copy[key] = key === 'enum' || key === 'const' ? value : namedVariants(value, prefix, named);
  const tag = (copy.discriminator as { propertyName?: string } | undefined)?.propertyName;
  if (tag === undefined || !Array.isArray(copy.oneOf)) return copy;
  const mapping: Record<string, string> = {};
  copy.oneOf = copy.oneOf.map((variant: { properties?: Record<string, { const?: unknown }> }) => {
    const value = variant.properties?.[tag]?.const;
    if (typeof value !== 'string')
      throw new Error(`${prefix}: a variant of the union on ${tag} has no constant ${tag}`);
    const name = pascal(prefix) + pascal(value);
    named[name] = variant;
    mapping[value] = `#/components/schemas/${name}`;
    return { $ref: mapping[value] };
  });
  copy.discriminator = { propertyName: tag, mapping };
  return copy;
}

/** The `Idempotency-Key` request header of an idempotent route (api/http/idempotency.ts). */
const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Any string of 1 to 255 characters the client chooses per request: a retry with the same key and body, by the same organization, within 24 hours, gets the first answer (with `Idempotent-Replayed: true`) and does nothing again; the same key with another body answers 422, and a retry while the first request still runs waits for its answer (409 if it takes over a minute).',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

/** The success answers of an idempotent route may be replays. */
const REPLAYED_HEADERS = {
  'Idempotent-Replayed': {
    description: '`true` when this is the recorded answer to an earlier request with the same `Idempotency-Key`',
    schema: { type: 'string', enum: ['true'] },
  },
};

function successContent(spec: RouteSpec): Record<string, unknown> {
  const contentType = spec.success?.contentType ?? 'application/json';
  if (contentType !== 'application/json') return { [contentType]: { schema: { type: 'string', format: 'binary' } } };
  const schema = spec.success?.schema ?? { $ref: '#/components/schemas/Success' };
  return { [contentType]: { schema } };
}

function operation(group: RouteGroup, spec: RouteSpec, named: Record<string, unknown>): Record<string, unknown> {
  const fullPath = group.prefix + spec.path;
  const params = [...fullPath.matchAll(/\{(\w+)\}/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  const query = (spec.query ?? []).map((name) => ({ name, in: 'query', required: false, schema: { type: 'string' } }));
  const idempotencyErrors = spec.idempotent ? [409, 422] : [];
  // A read the read models cannot catch up for in time, or one of them stopped (api/http/consistent-reads.ts).
  const readsBehind = group.security === 'organization' && !group.readsNothing && spec.method === 'get' ? [503] : [];
  const statuses = [
    ...new Set([...implicitErrors(group.security, spec), ...(spec.errors ?? []), ...idempotencyErrors, ...readsBehind]),
  ].sort((a, b) => a - b);
  const success = spec.success ?? { status: 200, description: 'JSON: `success` and `data` (or `message`)' };
  const replayed = spec.idempotent ? { headers: REPLAYED_HEADERS } : {};
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    security: SECURITY[group.security],
    ...(spec.scopes && spec.scopes.length > 0 && { 'x-required-scope': spec.scopes.join(' or ') }),
    parameters: [...params, ...query, ...(spec.idempotent ? [IDEMPOTENCY_KEY_PARAMETER] : [])],
    ...(spec.body && {
      requestBody: {
        required: true,
        content: { 'application/json': { schema: namedVariants(closed(spec.body), spec.operationId, named) } },
      },
    }),
    responses: {
      [String(success.status)]: {
        description: success.description,
        ...replayed,
        content: successContent(spec),
      },
      ...Object.fromEntries(
        (spec.success?.also ?? []).map((other) => [
          String(other.status),
          { description: other.description, ...replayed, content: successContent(spec) },
        ]),
      ),
      ...Object.fromEntries(
        statuses.map((status) => [String(status), { $ref: `#/components/responses/${ERRORS[status] ?? 'Error'}` }]),
      ),
    },
  };
}

export function openApiDocument(groups: readonly RouteGroup[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const named: Record<string, unknown> = {};
  for (const group of groups)
    for (const spec of group.routes)
      (paths[group.prefix + spec.path] ??= {})[spec.method] = operation(group, spec, named);
  const envelope = { $ref: '#/components/schemas/Error' };
  // The error answers some operation gives, each once: an unused one would describe nothing.
  const used = new Set(JSON.stringify(paths).match(/#\/components\/responses\/\w+/g));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Voice and agent communication service',
      version: '1.0.0',
      description:
        'Campaigns, customers, calls and chats by AI agents, their logs, and text to speech in twelve Indian languages.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: '/', description: 'This service' }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An organization token' },
        adminToken: { type: 'http', scheme: 'bearer', description: 'The ADMIN_TOKEN' },
        providerSecret: { type: 'http', scheme: 'bearer', description: "A provider's shared webhook secret" },
      },
      schemas: {
        Success: {
          type: 'object',
          description:
            'A JSON answer: `success`, with `data` (the resource, or a page of them beside `pagination`) or `message`, and what the operation adds (`callResults`...)',
          required: ['success'],
          additionalProperties: true,
          properties: {
            success: { type: 'boolean', description: 'False when a bulk request succeeded for some items only' },
            message: { type: 'string' },
            data: { description: "The operation's resource or resources" },
          },
        },
        Error: {
          type: 'object',
          description: 'The error envelope (spec 7.1); the recording endpoint leaves out `success`',
          required: ['message'],
          properties: {
            success: { type: 'boolean', const: false },
            error: { type: 'string', description: 'The HTTP reason, e.g. NotFound' },
            message: { type: 'string' },
            errors: {
              type: 'array',
              items: {
                anyOf: [
                  { type: 'string' },
                  {
                    type: 'object',
                    description: 'A record the bulk add of customers did not add, and why',
                    required: ['error'],
                    additionalProperties: true,
                    properties: {
                      id: { type: ['string', 'null'] },
                      error: { type: 'string' },
                      reason: { type: 'string' },
                    },
                  },
                ],
              },
              description:
                'Validation failures, each naming its field; for the bulk add of customers, the records it did not add',
            },
          },
        },
        ...named,
      },
      responses: Object.fromEntries(
        Object.entries(ERRORS)
          .filter(([, name]) => used.has(`#/components/responses/${name}`))
          .map(([status, name]) => [
            name,
            { description: DESCRIPTIONS[Number(status)], content: { 'application/json': { schema: envelope } } },
          ]),
      ),
    },
  };
}
