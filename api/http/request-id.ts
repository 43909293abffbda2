import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

const VALID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Every response carries X-Request-ID: the client's when it sent a sane one, else a new one. */
export const requestId: RequestHandler = (req, res, next) => {
  const given = req.get('x-request-id');
  const id = given && VALID.test(given) ? given : randomUUID();
  res.locals.requestId = id;
  res.setHeader('X-Request-ID', id);
  next();
};
