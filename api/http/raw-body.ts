/**
 * A request's body as the bytes that came, for the providers' webhooks whose signatures are computed
 * over them (X-Twilio-Signature over the form fields, X-Hub-Signature-256 over the JSON bytes). At most
 * `limit` bytes (413 beyond); these routes are public, so the limit is small.
 */
import type { Request } from 'express';
import { HttpError } from './errors';

/** The largest webhook body a provider sends here (a status report, a message batch). */
export const WEBHOOK_BODY_BYTES = 256 * 1024;

export function readRawBody(req: Request, limit = WEBHOOK_BODY_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) return reject(new HttpError(413, `Request body larger than ${limit} bytes`));
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(new HttpError(413, `Request body larger than ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
