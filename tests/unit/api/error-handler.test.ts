/** How failures that are not the client's are answered: a store briefly away is a 503 to retry, not a 500. */
import type { AddressInfo } from 'node:net';
import express from 'express';
import Database from 'better-sqlite3';
import { errorHandler, STORE_UNAVAILABLE_MESSAGE, UNEXPECTED_MESSAGE } from '../../../api/http/errors';
import { silentLogger } from '../../../infrastructure/logging/json-logger';
import { kurrentError, status } from '../../support/kurrent-errors';

async function answerTo(error: unknown): Promise<{ status: number; retryAfter: string | null; body: unknown }> {
  const app = express();
  app.get('/fails', () => {
    throw error;
  });
  app.use(errorHandler(silentLogger));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const reply = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/fails`);
    return { status: reply.status, retryAfter: reply.headers.get('retry-after'), body: await reply.json() };
  } finally {
    server.close();
  }
}

describe('error answers', () => {
  it('answers 503 with Retry-After when the store is briefly away (SQLite busy, KurrentDB unavailable)', async () => {
    for (const error of [
      new Database.SqliteError('database is locked', 'SQLITE_BUSY'),
      kurrentError(status.UNAVAILABLE),
    ]) {
      expect(await answerTo(error)).toEqual({
        status: 503,
        retryAfter: '2',
        body: { success: false, error: 'ServiceUnavailable', message: STORE_UNAVAILABLE_MESSAGE },
      });
    }
  });

  it("says what a library's 403 and 404 refused, not 'Bad request'", async () => {
    const refusal = (status: number) => Object.assign(new Error('library'), { status, expose: true });
    expect(await answerTo(refusal(403))).toEqual({
      status: 403,
      retryAfter: null,
      body: { success: false, error: 'Forbidden', message: 'This path is outside the files served here' },
    });
    expect((await answerTo(refusal(404))).body).toEqual({
      success: false,
      error: 'NotFound',
      message: 'No file at this path',
    });
  });

  it('answers 500 without details for anything else', async () => {
    expect(await answerTo(new Error('a bug'))).toEqual({
      status: 500,
      retryAfter: null,
      body: { success: false, error: 'InternalServerError', message: UNEXPECTED_MESSAGE },
    });
  });
});
