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
  409: 'Conflict',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  416: 'RangeNotSatisfiable',
  422: 'UnprocessableEntity',
  429: 'TooManyRequests',
  500: 'InternalServerError',
  503: 'ServiceUnavailable',
};

const DESCRIPTIONS: Record<number, string> = {
  400: 'Validation failed: `errors` names each problem',
  401: 'Missing or invalid authorization header',
  402: 'Not enough credits',
  403: 'Missing scope, or a resource of another organization',
  404: 'Not found',
  409: 'Conflict with existing data',
  413: 'Request body too large',
  415: 'Content-Type must be application/json',
  416: 'Requested range not satisfiable',
  422: 'Unprocessable request',
  429: 'Too many requests',
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
  const errors = [500];
  if (security !== 'public') errors.push(401);
  if (spec.scopes && spec.scopes.length > 0) errors.push(403);
  if (spec.body) errors.push(400, 413, 415);
  return errors;
}

function operation(group: RouteGroup, spec: RouteSpec): Record<string, unknown> {
  const fullPath = group.prefix + spec.path;
  const params = [...fullPath.matchAll(/\{(\w+)\}/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  const query = (spec.query ?? []).map((name) => ({ name, in: 'query', required: false, schema: { type: 'string' } }));
  const statuses = [...new Set([...implicitErrors(group.security, spec), ...(spec.errors ?? [])])].sort(
    (a, b) => a - b,
  );
  const success = spec.success ?? { status: 200, description: 'JSON: `success` and `data` (or `message`)' };
  const successContent = success.contentType ?? 'application/json';
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    security: SECURITY[group.security],
    ...(spec.scopes && spec.scopes.length > 0 && { 'x-required-scope': spec.scopes.join(' or ') }),
    parameters: [...params, ...query],
    ...(spec.body && {
      requestBody: { required: true, content: { 'application/json': { schema: closed(spec.body) } } },
    }),
    responses: {
      [String(success.status)]: {
        description: success.description,
        content: {
          [successContent]: {
            schema: successContent === 'application/json' ? { type: 'object' } : { type: 'string', format: 'binary' },
          },
        },
      },
      ...Object.fromEntries(
        statuses.map((status) => [String(status), { $ref: `#/components/responses/${ERRORS[status] ?? 'Error'}` }]),
      ),
    },
  };
}

export function openApiDocument(groups: readonly RouteGroup[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const group of groups)
    for (const spec of group.routes) (paths[group.prefix + spec.path] ??= {})[spec.method] = operation(group, spec);
  const envelope = { $ref: '#/components/schemas/Error' };
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
              items: { type: 'string' },
              description: 'Validation failures, each naming its field',
            },
          },
        },
      },
      responses: Object.fromEntries(
        Object.entries(ERRORS).map(([status, name]) => [
          name,
          { description: DESCRIPTIONS[Number(status)], content: { 'application/json': { schema: envelope } } },
        ]),
      ),
    },
  };
}
