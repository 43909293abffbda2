/**
 * `Idempotency-Key` on the routes that create or start something (`idempotent: true` in their
 * declaration, route.ts): a retry with the same key and body, by the same organization, within 24 hours,
 * answers what the first request answered, with `Idempotent-Replayed: true`, and does nothing again
 * (docs/api-decisions.md, "Idempotency-Key"). Without the header a request is served as always.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { IdempotencyKeys, Claim } from '../../application/idempotency/idempotency-keys';
import type { Logger } from '../../application/ports/logger';
import { contextOf } from './auth';
import { HttpError } from './errors';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
export const BODY_MISMATCH_MESSAGE = 'Idempotency-Key reused with a different request body';
export const ENDPOINT_MISMATCH_MESSAGE = 'Idempotency-Key reused for a different endpoint';
export const IN_PROGRESS_MESSAGE = 'A request with this Idempotency-Key is still in progress; try again shortly';

/** Headers an answer may carry that a replay repeats (every other header is the replay's own). */
const KEPT_HEADERS = ['location'];

/**
 * Set by the route's last step when its handler (or the body validation) threw: the answer then comes
 * from the error handler, and a 5xx of that kind is not kept.
 */
export const markFailed = (res: Response): void => void (res.locals.routeFailed = true);

/** The route's path with its parameters filled in (`/initiate/{campaignId}/calls` as asked), whatever case or slash the request used. */
const pathOf = (declared: string, req: Request) =>
  declared.replace(/\{(\w+)\}/g, (_m, name: string) => String(req.params[name] ?? ''));

/** The middleware of one route, from its method and its path as declared (below its group's prefix). */
export function idempotency(keys: IdempotencyKeys, logger: Logger) {
  return (method: string, declaredPath: string): RequestHandler =>
    async (req, res, next) => {
      const key = req.get(IDEMPOTENCY_KEY_HEADER);
      if (key === undefined) return next();
      if (key.trim() === '') throw new HttpError(400, `${IDEMPOTENCY_KEY_HEADER} must not be empty`);
      if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH)
        throw new HttpError(400, `${IDEMPOTENCY_KEY_HEADER} must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
      const ctx = contextOf(res);
      const admission = await keys.admit({
        organizationId: ctx.organizationId,
        actor: ctx.actor,
        requestId: ctx.requestId,
        key,
        method: method.toUpperCase(),
        path: pathOf(declaredPath, req),
        body: req.body,
      });
      switch (admission.kind) {
        case 'replay': {
          const { status, headers, body } = admission.answer;
          for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
          res.setHeader(REPLAYED_HEADER, 'true');
          res.status(status).type('application/json').send(body);
          return;
        }
        case 'mismatch':
          throw new HttpError(422, admission.what === 'body' ? BODY_MISMATCH_MESSAGE : ENDPOINT_MISMATCH_MESSAGE);
        case 'busy':
          res.setHeader('Retry-After', '1');
          throw new HttpError(409, IN_PROGRESS_MESSAGE);
        case 'run':
          res.locals.ctx = { ...ctx, origin: admission.claim.origin };
          recordAnswer(res, admission.claim, logger);
          next();
      }
    };
}

/**
 * Records the answer before it is sent, so a client that got it finds it on a retry: the first JSON
 * answer of the request is kept, unless it is a 5xx the route did not decide on itself (an unexpected
 * error, a store away for a moment), which gives the key back for the retry to run the request again.
 * A client that hangs up does not stop the request: its answer is recorded all the same, for the retry.
 */
function recordAnswer(res: Response, claim: Claim, logger: Logger): void {
  const json = res.json.bind(res);
  let settled = false;
  const warn = (error: unknown) =>
    logger.warn('idempotent answer not recorded', { requestId: res.locals.requestId, error: String(error) });
  res.json = (body: unknown) => {
    if (settled) return json(body);
    settled = true;
    const status = res.statusCode;
    const keep = status !== 503 && (status < 500 || res.locals.routeFailed !== true);
    const headers: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = res.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    const text = JSON.stringify(body) ?? 'null';
    const recorded = keep ? claim.complete({ status, headers, body: text }) : claim.release(status);
    void recorded.catch(warn).finally(() => {
      if (!res.headersSent) json(body);
    });
    return res;
  };
}
