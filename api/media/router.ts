/**
 * Transcript and recording routes (spec 4.6, 4.7; decisions.md section 2, with the plural alias of
 * the recording path). A recording is served as a file is: its length, `Accept-Ranges`, and single
 * byte ranges (206, or 416 with the size), so players can seek. The recording endpoint's error bodies
 * carry `error` and `message` without `success` (spec 7.1).
 */
import type { Request, RequestHandler, Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { CallMediaQueries, type CallMediaSources } from '../../application/calls/call-media';
import { contextOf, paramOf } from '../http/auth';
import { route, type RouteSpec } from '../http/route';
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

const READ = ['logs:read'];

/**
 * What the recording path and its alias share: the recording, whole or one byte range of it. Their
 * errors go without `success` through recordingErrorsWithoutSuccess, mounted before authentication.
 */
const RECORDING = {
  scopes: READ,
  errors: [404, 416],
  success: {
    status: 200,
    description: 'The recording; a `Range` of bytes answers 206 with that part and `Content-Range`',
    contentType: 'audio/wav',
    also: [{ status: 206, description: 'The part of the recording the `Range` asked for, with `Content-Range`' }],
  },
};

export function mediaRoutes(deps: MediaRouterDeps): RouteSpec[] {
  const media = new CallMediaQueries(deps);

  const serveRecording = async (req: Request, res: Response): Promise<void> => {
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
  };

  return [
    route({
      method: 'get',
      path: '/transcript/{transcript_id}',
      operationId: 'getTranscript',
      summary: 'A call transcript',
      scopes: READ,
      errors: [404],
      handler: async (req, res) => {
        res.json({ success: true, data: await media.transcript(contextOf(res), paramOf(req, 'transcript_id')) });
      },
    }),
    route({
      method: 'get',
      path: '/recording/{recording_id}',
      operationId: 'getRecording',
      summary: 'A call recording (audio/wav; byte ranges supported)',
      ...RECORDING,
      handler: serveRecording,
    }),
    route({
      method: 'get',
      path: '/recordings/{recording_id}',
      operationId: 'getRecordingAlias',
      summary: 'Alias of /recording/{recording_id}',
      ...RECORDING,
      handler: serveRecording,
    }),
  ];
}
