/**
 * The error envelope of spec 7.1 and the mapping of every failure to it. A 500 never carries a stack
 * trace; it is logged with the request id instead.
 */
import type { ErrorRequestHandler, Response } from 'express';
import { DomainError } from '../../domain/shared/errors';
import type { Logger } from '../../application/ports/logger';

export const UNAUTHORIZED_MESSAGE = 'Missing or invalid authorization header';
export const NO_PERMISSION_MESSAGE = "You don't have the required permission to perform this action";
export const UNEXPECTED_MESSAGE = 'An unexpected error occurred';
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
  429: 'TooManyRequests',
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

export function sendError(res: Response, status: number, message: string, extra: Record<string, unknown> = {}): void {
  const body = res.locals.errorWithoutSuccess ? { error: ERROR_NAMES[status] ?? 'Error', message, ...extra } : { success: false, error: ERROR_NAMES[status] ?? 'Error', message, ...extra };
  if (message === 'Validation failed') delete (body as { error?: string }).error;
  res.status(status).json(body);
}

const DOMAIN_STATUS = { invalid: 400, not_found: 404, forbidden: 403, conflict: 409 } as const;

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (error instanceof HttpError) return sendError(res, error.status, error.message, error.extra);
    if (error instanceof DomainError) return sendError(res, DOMAIN_STATUS[error.kind], error.message, error.details);
    const bodyError = error as { type?: string; status?: number };
    // The speech interface answers with the codes of spec 7.3 (decisions.md section 5), even for a body that is not JSON.
    if (bodyError.type === 'entity.parse.failed' && req.path === SPEECH_PATH) return void res.status(400).json({ success: false, error: 'invalid_request', message: 'Invalid JSON body' });
    if (bodyError.type === 'entity.parse.failed') return sendError(res, 400, 'Invalid JSON body');
    if (bodyError.type === 'entity.too.large') return sendError(res, 413, 'Request body too large');
    if (bodyError.type === 'encoding.unsupported' || bodyError.type === 'charset.unsupported') return sendError(res, 415, 'Unsupported body encoding');
    if (typeof bodyError.status === 'number' && bodyError.status >= 400 && bodyError.status < 500) return sendError(res, bodyError.status, 'Bad request');
    logger.error('unhandled error', { requestId: res.locals.requestId, method: req.method, path: req.path, error: String(error), stack: (error as Error)?.stack });
    sendError(res, 500, UNEXPECTED_MESSAGE);
  };
}
