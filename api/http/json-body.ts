/**
 * Reading a request body, mounted after authentication so that an anonymous caller cannot make the
 * server parse (and hold) megabytes. A body must be JSON (415 otherwise, so a body is never silently
 * ignored), at most `limit` bytes (413), and of a sane shape (json-shape.ts, 400). A request without a
 * body leaves `req.body` undefined.
 */
import express, { type Request, type RequestHandler } from 'express';
import { HttpError, validationFailed } from './errors';
import { jsonShapeProblems } from './json-shape';

/** Bodies of ordinary routes; bulk routes are given a larger limit where they are mounted. */
export const DEFAULT_BODY_BYTES = 1024 * 1024;

export const UNSUPPORTED_CONTENT_TYPE = 'Content-Type must be application/json';

const hasBody = (req: Request): boolean =>
  req.headers['transfer-encoding'] !== undefined ||
  (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

export function jsonBody(limit: number): RequestHandler {
  const parse = express.json({ limit, strict: false, type: () => true });
  return (req, res, next) => {
    if (!hasBody(req)) return next();
    if (!req.is(['application/json', '+json'])) return next(new HttpError(415, UNSUPPORTED_CONTENT_TYPE));
    parse(req, res, (error?: unknown) => {
      if (error) return next(error);
      const problems = jsonShapeProblems(req.body);
      next(problems.length > 0 ? validationFailed(problems) : undefined);
    });
  };
}
