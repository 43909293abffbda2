/**
 * One HTTP request exactly as written (the path not normalized, headers repeated, any body and
 * Content-Type), with a deadline: an answer that does not come in time is reported as a hang, not
 * waited for. A streamed answer (Server-Sent Events) is taken at its headers.
 */
import { request } from 'node:http';

export type RawRequest = {
  method: string;
  /** Path and query as sent, percent-encoded by the caller (or not). */
  path: string;
  headers: Record<string, string | string[]>;
  body?: Buffer;
};

export type RawAnswer = {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as text (at most `MAX_BODY_BYTES`), empty for a stream taken at its headers. */
  text: string;
  ms: number;
};

export class Hang extends Error {}

const MAX_BODY_BYTES = 8 * 1024 * 1024;

export function send(baseUrl: string, raw: RawRequest, timeoutMs: number): Promise<RawAnswer> {
  const url = new URL(baseUrl);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = request({
      host: url.hostname,
      port: url.port,
      method: raw.method,
      path: raw.path,
      headers: { ...raw.headers, ...(raw.body && { 'content-length': String(raw.body.length) }) },
      agent: false,
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Hang(`no complete answer to ${raw.method} ${raw.path.slice(0, 200)} in ${timeoutMs} ms`));
    }, timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.on('response', (res) => {
      const done = (text: string) => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, ms: Date.now() - started });
      };
      if (String(res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
        res.destroy();
        return done('');
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      });
      res.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
      res.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
    req.end(raw.body);
  });
}

/** Percent-encodes any string, lone surrogates included (as the bytes of U+FFFD, as a browser would). */
export function encode(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9\-_.~]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
}
