/**
 * Transcript and recording routes (spec 4.6, 4.7; decisions.md section 2, with the plural alias of
 * the recording path). A recording is served as a file is: its length, `Accept-Ranges`, and single
 * byte ranges (206, or 416 with the size), so players can seek. The recording endpoint's error bodies
 * carry `error` and `message` without `success` (spec 7.1).
 */
import type { RequestHandler } from 'express';
import { Router } from 'express';
import { pipeline } from 'node:stream/promises';
import { CallMediaQueries, type CallMediaSources } from '../../application/calls/call-media';
import { contextOf, paramOf, requireScope } from '../http/auth';
import { byteRange } from './byte-range';

export type MediaRouterDeps = CallMediaSources;

const RECORDING_PATH = /^\/recordings?(\/|$)/;

/**
 * Marks the recording paths so every error on them (401 and 403 of authentication included) is sent
 * without `success`. Mount it before authentication, on the router the media router joins.
 */
export const recordingErrorsWithoutSuccess: RequestHandler = (req, res, next) => {
  if (RECORDING_PATH.test(req.path)) res.locals.errorWithoutSuccess = true;
  next();
};

export function mediaRouter(deps: MediaRouterDeps): Router {
  const router = Router();
  const media = new CallMediaQueries(deps);
  const read = requireScope('logs:read');

  router.get('/transcript/:transcript_id', read, async (req, res) => {
    res.json({ success: true, data: await media.transcript(contextOf(res), paramOf(req, 'transcript_id')) });
  });

  router.get(
    ['/recording/:recording_id', '/recordings/:recording_id'],
    recordingErrorsWithoutSuccess,
    read,
    async (req, res) => {
      const recording = await media.recording(contextOf(res), paramOf(req, 'recording_id'));
      const range = byteRange(req.get('range'), recording.size);
      res.set('Accept-Ranges', 'bytes');
      if (range.kind === 'unsatisfiable') {
        res
          .status(416)
          .set('Content-Range', `bytes */${recording.size}`)
          .json({ error: 'RangeNotSatisfiable', message: 'Requested range not satisfiable' });
        return;
      }
      const part = range.kind === 'partial' ? { start: range.start, end: range.end } : undefined;
      // Opened before any audio header is set, so a recording gone meanwhile still answers a plain 404.
      const audio = req.method === 'HEAD' ? null : await recording.read(part);
      res.set({
        'Content-Type': recording.contentType,
        'Content-Length': String(part ? part.end - part.start + 1 : recording.size),
        'Cache-Control': 'private, no-store',
      });
      if (part) res.status(206).set('Content-Range', `bytes ${part.start}-${part.end}/${recording.size}`);
      if (!audio) {
        res.end();
        return;
      }
      try {
        await pipeline(audio, res);
      } catch (error) {
        // The listener went away (a player seeking elsewhere does that all the time): nothing to answer.
        if ((error as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE') return;
        throw error;
      }
    },
  );

  return router;
}
