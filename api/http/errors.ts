/**
 * The error envelope of spec 7.1 and the mapping of every failure to it. A 500 never carries a stack
 * trace; it is logged with the request id instead.
 */
import type { ErrorRequestHandler, Response } from 'express';
import { DomainError } from '../../domain/shared/errors';
import type { Logger } from '../../application/ports/logger';
import { isTransient } from '../../infrastructure/shared/transient-errors';

export const UNAUTHORIZED_MESSAGE = 'Missing or invalid authorization header';
export const NO_PERMISSION_MESSAGE = "You don't have the required permission to perform this action";
export const UNEXPECTED_MESSAGE = 'An unexpected error occurred';
export const STORE_UNAVAILABLE_MESSAGE = 'The service cannot reach its data store right now; try again shortly';
/** Seconds a client is asked to wait before repeating a request its store could not take. */
const STORE_RETRY_AFTER_SECONDS = 2;
const SPEECH_PATH = '/api/v1/get_speech';

const ERROR_NAMES: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  402: 'PaymentRequired',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  422: 'UnprocessableEntity',
  429: 'TooManyRequests',
  431: 'RequestHeaderFieldsTooLarge',
  500: 'InternalServerError',
  503: 'ServiceUnavailable',
};

/** An error whose answer is already decided: status, message and extra body fields. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export const validationFailed = (errors: string[]) => new HttpError(400, 'Validation failed', { errors });

/** The envelope's `error` for a status (`TooManyRequests` for 429). */
export const errorName = (status: number): string => ERROR_NAMES[status] ?? 'Error';

export function sendError(res: Response, status: number, message: string, extra: Record<string, unknown> = {}): void {
  const body = res.locals.errorWithoutSuccess
    ? { error: errorName(status), message, ...extra }
    : { success: false, error: errorName(status), message, ...extra };
  if (message === 'Validation failed') delete (body as { error?: string }).error;
  res.status(status).json(body);
}

/**
 * What a library's own refusal (a status without our message) says, by status: Express's static files
 * refuse a path outside their folder (403) or a file they do not have (404).
 */
const LIBRARY_MESSAGES: Record<number, string> = {
  403: 'This path is outside the files served here',
  404: 'No file at this path',
};

/** The answer to a request refused for what it sent (its body, its headers), or null for any other failure. */
function bodyFailure(error: unknown): { status: number; message: string; extra?: Record<string, unknown> } | null {
  if (error instanceof HttpError) return { status: error.status, message: error.message, extra: error.extra };
  const parser = error as { type?: string; status?: number };
  if (parser.type === 'entity.parse.failed') return { status: 400, message: 'Invalid JSON body' };
  if (parser.type === 'entity.too.large') return { status: 413, message: 'Request body too large' };
  if (parser.type === 'encoding.unsupported' || parser.type === 'charset.unsupported')
    return { status: 415, message: 'Unsupported body encoding' };
  if (typeof parser.status === 'number' && parser.status >= 400 && parser.status < 500)
    return { status: parser.status, message: LIBRARY_MESSAGES[parser.status] ?? 'Bad request' };
  return null;
}

const DOMAIN_STATUS = { invalid: 400, not_found: 404, forbidden: 403, conflict: 409 } as const;

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const body = bodyFailure(error);
    // The speech interface answers with the codes of spec 7.3 (decisions.md section 5), even for a body it could not read.
    if (body && req.path === SPEECH_PATH)
      return void res
        .status(body.status)
        .json({ success: false, error: 'invalid_request', message: body.message, ...body.extra });
    if (body) return sendError(res, body.status, body.message, body.extra);
    if (error instanceof DomainError) return sendError(res, DOMAIN_STATUS[error.kind], error.message, error.details);
    // A store that is briefly away (a leader election, a step-down, a busy file) is not a bug: the
    // client is told to come back. What it asked may or may not have been recorded.
    if (isTransient(error)) {
      logger.warn('store unavailable', { requestId: res.locals.requestId, path: req.path, error: String(error) });
      res.setHeader('Retry-After', String(STORE_RETRY_AFTER_SECONDS));
      return sendError(res, 503, STORE_UNAVAILABLE_MESSAGE);
    }
    logger.error('unhandled error', {
      requestId: res.locals.requestId,
      method: req.method,
      path: req.path,
      error: String(error),
      stack: (error as Error)?.stack,
    });
    sendError(res, 500, UNEXPECTED_MESSAGE);
  };
}
