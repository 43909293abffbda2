/**
 * The operator console (console/, built by `npm run build` into dist/console) served at /console by
 * the service itself. Its files are static: hashed assets are cached for good, the page itself never;
 * any other path below /console is one of the console's own pages, answered with its index. The page
 * may load nothing from elsewhere (Content-Security-Policy), and every call it makes goes through the
 * public API with the operator's token.
 */
import express, { type RequestHandler, Router } from 'express';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sendError } from '../http/errors';

export const CONSOLE_PATH = '/console';

/** What the console's page may load and connect to: its own origin only. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** dist/console of the project this file belongs to, whether it runs from the sources or from dist/. */
export function builtConsoleDir(from: string = __dirname): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) return join(from, 'console');
    dir = parent;
  }
  return join(dir, 'dist', 'console');
}

const securityHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  next();
};

export function consoleFiles(dir: string = builtConsoleDir()): Router {
  const router = Router();
  const index = join(dir, 'index.html');
  router.use(securityHeaders);
  router.use(
    '/assets',
    express.static(join(dir, 'assets'), { immutable: true, maxAge: '365d', index: false, fallthrough: false }),
  );
  router.get(/.*/, (_req, res) => {
    if (!existsSync(index))
      return sendError(res, 503, 'The console is not built: run `npm run build` and start the service again');
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index);
  });
  return router;
}
