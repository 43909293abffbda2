/**
 * A route, declared once: its method and path, the scopes that admit it, its body schema, its query
 * parameters, the errors it answers, and its handler. The same declaration mounts the Express route
 * (path, scope check, `Idempotency-Key`, body validation) and writes the route's entry in /openapi.json, so none of them
 * is written twice.
 */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { Static, TSchema } from '@sinclair/typebox';
import { requireScope } from './auth';
import { markFailed } from './idempotency';
import { validate } from './validation';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** How a route's caller proves who it is; it decides the 401 it may answer and its OpenAPI security. */
export type Security = 'organization' | 'admin' | 'secret' | 'public';

export type RouteSpec<S extends TSchema = TSchema> = {
  method: Method;
  /** The path below the group's prefix, OpenAPI style: `/dispositions/{id}`. */
  path: string;
  /** The operation's name in /openapi.json, for client generators: `createDisposition`. */
  operationId: string;
  summary: string;
  /** Any one of these admits the request (a token without a scope claim may do everything). */
  scopes?: readonly string[];
  /** Validated before the handler runs (400 naming each problem), unless `bodyCheck` is `handler`. */
  body?: S;
  /** `handler`: the handler reads the body itself (answers the platform's own texts first, say); `body` documents it. */
  bodyCheck?: 'route' | 'handler';
  /** The query parameters the route reads, for the API description. */
  query?: readonly string[];
  /** The error statuses the route answers beyond those of its security and scopes (400, 404, 409...). */
  errors?: readonly number[];
  /**
   * The success status and what it carries, for the API description (200 JSON by default). A JSON answer
   * is the envelope `{success, message?, data?}` unless `schema` describes another shape.
   */
  success?: {
    status: number;
    description: string;
    contentType?: string;
    schema?: TSchema;
    /** Other success statuses with the same content: 206 for a byte range, 207 when a bulk request succeeded in part. */
    also?: readonly { status: number; description: string }[];
  };
  /**
   * Takes an `Idempotency-Key` (api/http/idempotency.ts): a retry with the same key and body answers the
   * first answer and does nothing again. For the routes that create or start something.
   */
  idempotent?: boolean;
  handler: (req: Request, res: Response, body: Static<S>) => unknown;
};

/**
 * Routes that share a prefix and a way of authenticating. Organization and admin routes are
 * authenticated where the application mounts them; a `secret` group brings its own `guard`, run before
 * each of its routes (so a path none of them takes still answers 404).
 */
export type RouteGroup = {
  prefix: string;
  security: Security;
  routes: readonly RouteSpec[];
  guard?: RequestHandler;
  /** Answered without waiting for the read models to include earlier writes (speech reads none). */
  readsNothing?: boolean;
};

/** Declares a route; the body's type flows from its schema to the handler. */
export const route = <S extends TSchema>(spec: RouteSpec<S>): RouteSpec => spec as unknown as RouteSpec;

/** `/dispositions/{id}` as Express writes it: `/dispositions/:id`. */
export const expressPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');

/** The middleware of an idempotent route, from its method and declared path (api/http/idempotency.ts). */
export type IdempotencyStep = (method: Method, path: string) => RequestHandler;

/**
 * One Express router for `routes`: each with `before` (a guard, the body reader), its scope check, its
 * `Idempotency-Key` handling when it is `idempotent`, its body validation and its handler.
 */
export function routerOf(
  routes: readonly RouteSpec[],
  before: readonly RequestHandler[] = [],
  idempotency?: IdempotencyStep,
): Router {
  const router = Router();
  for (const spec of routes) {
    const steps: RequestHandler[] = [...before];
    if (spec.scopes && spec.scopes.length > 0) steps.push(requireScope(...spec.scopes));
    if (spec.idempotent) {
      if (!idempotency) throw new Error(`${spec.operationId} is idempotent, but its router has no idempotency step`);
      steps.push(idempotency(spec.method, spec.path));
    }
    steps.push(async (req, res) => {
      try {
        const body = spec.body && spec.bodyCheck !== 'handler' ? validate(spec.body, req.body) : req.body;
        await spec.handler(req, res, body);
      } catch (error) {
        markFailed(res);
        throw error;
      }
    });
    router[spec.method](expressPath(spec.path), ...steps);
  }
  return router;
}
