/**
 * The transcript and recording routes over the memory read store and blob store. Authentication is a
 * stand-in (headers name the organization and scopes): this tests the media router, not the tokens.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { recordingBlobKey } from '../../../application/calls/recording-key';
import { wavFile } from '../../../application/audio/wav';
import type { Logger } from '../../../application/ports/logger';
import type { RequestContext } from '../../../application/request-context';
import { mediaRoutes, recordingErrorsWithoutSuccess } from '../../../api/media/router';
import { routerOf } from '../../../api/http/route';
import { errorHandler, sendError, UNAUTHORIZED_MESSAGE, NO_PERMISSION_MESSAGE } from '../../../api/http/errors';
import { MemoryBlobStore } from '../../../infrastructure/memory/memory-blob-store';
import { MemoryReadStore } from '../../../infrastructure/memory/memory-read-store';
import { parseWav } from '../../../infrastructure/speech';
import { recordingsProjection, type RecordingDocument } from '../../../projections/recordings/recordings';
import { transcriptsProjection, type TranscriptDocument } from '../../../projections/transcripts/transcripts';

const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

// 0.5 s of a 440 Hz tone at 16 kHz: a real WAV file, 16,044 bytes.
const tone = Int16Array.from({ length: 8000 }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 16000)));
const audio = wavFile(tone, 16000);
const SIZE = audio.length;

const transcript: TranscriptDocument = {
  id: '6f1c7c1e-8d2a-4a57-9a53-0d3c1e7b9a10',
  organizationId: 'org-a',
  callId: 'call-1',
  entries: [
    { speaker: 'BOT', message: 'Hello, am I speaking with Ravi?' },
    { speaker: 'HUMAN', message: 'हाँ, मैं रवि बोल रहा हूँ।' },
  ],
};
const foreignTranscript: TranscriptDocument = {
  ...transcript,
  id: '0b8f5a52-3c7e-4c1b-8e0e-5d2f6a9b1c23',
  organizationId: 'org-b',
};
const recording: RecordingDocument = { id: 'rec-a', organizationId: 'org-a', callId: 'call-1' };
const foreignRecording: RecordingDocument = { id: 'rec-b', organizationId: 'org-b', callId: 'call-2' };
const lostRecording: RecordingDocument = { id: 'rec-lost', organizationId: 'org-a', callId: 'call-3' };

let server: Server;
let base: string;

beforeAll(async () => {
  const store = new MemoryReadStore();
  const transcripts = await store.collection<TranscriptDocument>(transcriptsProjection.collection);
  const recordings = await store.collection<RecordingDocument>(recordingsProjection.collection);
  const stored = (doc: { id: string }, position: number) => ({ id: doc.id, doc, position, version: 1 });
  await store.commit({
    projection: transcriptsProjection.name,
    checkpoint: 2,
    writes: [transcript, foreignTranscript].map((doc, i) => ({ collection: 'transcripts', document: stored(doc, i) })),
  });
  await store.commit({
    projection: recordingsProjection.name,
    checkpoint: 2,
    writes: [recording, foreignRecording, lostRecording].map((doc, i) => ({
      collection: 'recordings',
      document: stored(doc, i),
    })),
  });
  const blobs = new MemoryBlobStore();
  await blobs.put(recordingBlobKey('rec-a'), audio, 'audio/wav');
  await blobs.put(recordingBlobKey('rec-b'), audio, 'audio/wav');

  const app = express();
  const api = express.Router();
  api.use(recordingErrorsWithoutSuccess);
  api.use((req, res, next) => {
    const organizationId = req.get('x-test-organization');
    if (!organizationId) return sendError(res, 401, UNAUTHORIZED_MESSAGE);
    const scopes = req.get('x-test-scopes');
    const ctx: RequestContext = {
      organizationId,
      organizationType: 'collection',
      actor: 'tester',
      requestId: 'req-1',
      scopes: scopes === undefined ? null : new Set(scopes.split(' ')),
    };
    res.locals.ctx = ctx;
    next();
  });
  api.use(routerOf(mediaRoutes({ transcripts, recordings, blobs })));
  app.use('/api/v1', api);
  app.use((_req, res) => sendError(res, 404, 'Route not found'));
  app.use(errorHandler(silentLogger));
  server = app.listen(0);
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
  fetch(`${base}${path}`, { method, headers: { 'x-test-organization': 'org-a', ...headers } });
const bytes = async (res: Response) => Buffer.from(await res.arrayBuffer());

describe('GET /transcript/:transcript_id', () => {
  it('answers the entries of the organization’s transcript', async () => {
    const res = await get(`/transcript/${transcript.id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, data: transcript.entries });
  });

  it('answers 404 for an unknown transcript', async () => {
    const res = await get('/transcript/9d3e2f1a-0000-4000-8000-000000000000');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ success: false, error: 'NotFound', message: 'Transcript data not found' });
  });

  it('answers 403 for another organization’s transcript', async () => {
    const res = await get(`/transcript/${foreignTranscript.id}`);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      success: false,
      error: 'Forbidden',
      message: 'Access denied - Transcript belongs to another organization',
    });
  });

  it('needs the logs:read scope when the token lists scopes', async () => {
    const refused = await get(`/transcript/${transcript.id}`, { 'x-test-scopes': 'campaigns:read' });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ success: false, error: 'Forbidden', message: NO_PERMISSION_MESSAGE });
    expect((await get(`/transcript/${transcript.id}`, { 'x-test-scopes': 'campaigns:read logs:read' })).status).toBe(
      200,
    );
  });

  it('keeps `success` on its authentication errors', async () => {
    const res = await fetch(`${base}/transcript/${transcript.id}`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ success: false, error: 'Unauthorized', message: UNAUTHORIZED_MESSAGE });
  });
});

describe.each(['/recording', '/recordings'])('GET %s/:recording_id', (path) => {
  it('streams the whole recording as audio/wav with its length, and says ranges are accepted', async () => {
    const res = await get(`${path}/rec-a`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/wav');
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('content-length')).toBe(String(SIZE));
    expect(res.headers.get('content-range')).toBeNull();
    const body = await bytes(res);
    expect(body.equals(audio)).toBe(true);
    expect(parseWav(body)).toMatchObject({ sampleRate: 16000, channels: 1, bitsPerSample: 16 });
  });

  it.each([
    ['bytes=0-99', 0, 99],
    ['bytes=100-', 100, SIZE - 1],
    ['bytes=-50', SIZE - 50, SIZE - 1],
    [`bytes=16000-${SIZE + 1000}`, 16000, SIZE - 1],
    [`bytes=-${SIZE * 2}`, 0, SIZE - 1],
    [`bytes=${SIZE - 1}-${SIZE - 1}`, SIZE - 1, SIZE - 1],
  ])('answers the range %s with 206 and Content-Range', async (range, start, end) => {
    const res = await get(`${path}/rec-a`, { range });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes ${start}-${end}/${SIZE}`);
    expect(res.headers.get('content-length')).toBe(String(end - start + 1));
    expect(res.headers.get('content-type')).toBe('audio/wav');
    expect((await bytes(res)).equals(audio.subarray(start, end + 1))).toBe(true);
  });

  it.each([`bytes=${SIZE}-`, `bytes=${SIZE + 10}-${SIZE + 20}`, 'bytes=-0'])(
    'answers the unsatisfiable range %s with 416 and the size',
    async (range) => {
      const res = await get(`${path}/rec-a`, { range });
      expect(res.status).toBe(416);
      expect(res.headers.get('content-range')).toBe(`bytes */${SIZE}`);
      const body = await res.json();
      expect(body).not.toHaveProperty('success');
      expect(body).toMatchObject({ error: 'RangeNotSatisfiable' });
    },
  );

  it.each(['bytes=5-2', 'items=0-10', 'bytes=0-1,5-9', 'bytes=abc'])(
    'ignores the range %s it does not serve and sends the whole file',
    async (range) => {
      const res = await get(`${path}/rec-a`, { range });
      expect(res.status).toBe(200);
      expect((await bytes(res)).length).toBe(SIZE);
    },
  );

  it('answers HEAD with the headers alone', async () => {
    const res = await get(`${path}/rec-a`, { range: 'bytes=0-9' }, 'HEAD');
    expect(res.status).toBe(206);
    expect(res.headers.get('content-length')).toBe('10');
    expect((await bytes(res)).length).toBe(0);
  });

  it('answers 404 without `success` for an unknown recording, and for one whose audio is gone', async () => {
    for (const id of ['nope', 'rec-lost', '..%2F..%2Fetc%2Fpasswd']) {
      const res = await get(`${path}/${id}`);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual({ error: 'NotFound', message: 'Recording not found' });
    }
  });

  it('answers 403 without `success` for another organization’s recording', async () => {
    const res = await get(`${path}/rec-b`);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      error: 'Forbidden',
      message: 'Access denied - Recording belongs to another organization',
    });
  });

  it('needs the logs:read scope when the token lists scopes, and says so without `success`', async () => {
    const refused = await get(`${path}/rec-a`, { 'x-test-scopes': 'speech' });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ error: 'Forbidden', message: NO_PERMISSION_MESSAGE });
    expect((await get(`${path}/rec-a`, { 'x-test-scopes': 'logs:read' })).status).toBe(200);
  });

  it('answers 401 without `success` when the stand-in authentication refuses', async () => {
    const res = await fetch(`${base}${path}/rec-a`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'Unauthorized', message: UNAUTHORIZED_MESSAGE });
  });
});
