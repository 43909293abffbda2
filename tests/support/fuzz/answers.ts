/**
 * What every answer of the service must be, whatever it was sent: a status the API description
 * documents for the operation, never a 500 of its own making; an error in the envelope (`success: false`
 * and a string `message`); the headers every answer carries; and nothing of the inside of the service:
 * no stack frame, source or install path, or library version.
 */
import type { RawAnswer } from './raw-http';

/** What gives away the inside of the service. The fuzzers never send any of it, so an echo cannot match. */
const LEAKS: readonly [string, RegExp][] = [
  ['a path of the installation', /\/work\/|\/home\/|\/usr\/(lib|src)\/|\/app\/(dist|api|node_modules)/],
  ['node_modules', /node_modules/],
  ['a source position', /\.(ts|js|mjs|cjs):\d+/],
  ['a stack frame', /\n\s+at |\bat (async )?[\w$.<>]+ \(/],
  ['a library version', /\b(express|ajv|jose|ws|typebox|better-sqlite3|mongodb|kurrent\w*|node)[@/ ]v?\d+\.\d+/i],
  ['the runtime version', new RegExp(process.version.replace(/\./g, '\\.'))],
  ['an internal error name', /\b(TypeError|RangeError|ReferenceError|SyntaxError|SqliteError|MongoServerError)\b/],
];

export type Expectation = {
  /** The statuses the API description lists for the operation (its success among them). */
  documented: ReadonlySet<number>;
  /** An error body may leave out `success` (the recording endpoints, spec 7.1). */
  errorsWithoutSuccess?: boolean;
  /** A 500 that is the operation's own answer (spec 4.11: none of the customers got a call), told by its body. */
  ownServerError?: (body: any) => boolean;
};

/** An item of `errors` as the Error schema describes it: a problem, or a record the bulk add did not add. */
const isDocumentedError = (item: unknown) =>
  typeof item === 'string' ||
  (typeof item === 'object' && item !== null && typeof (item as { error?: unknown }).error === 'string');

/** The problems of one answer; none when it is as it must be. */
export function problemsOf(answer: RawAnswer, expected: Expectation): string[] {
  const problems: string[] = [];
  const { status, headers, text } = answer;
  const contentType = String(headers['content-type'] ?? '');
  let body: any;
  if (contentType.startsWith('application/json')) {
    try {
      body = JSON.parse(text);
    } catch {
      problems.push('its JSON body does not parse');
    }
  }
  if (status === 500 && !expected.ownServerError?.(body)) problems.push('answered 500');
  else if (!expected.documented.has(status)) problems.push(`answered ${status}, which the description does not list`);
  if (status >= 400) {
    if (!contentType.startsWith('application/json')) problems.push(`an error of type "${contentType}", not JSON`);
    else if (body !== undefined) {
      if (typeof body !== 'object' || body === null || typeof body.message !== 'string')
        problems.push('an error without a string message');
      else if (body.success !== false && !(expected.errorsWithoutSuccess && body.success === undefined))
        problems.push('an error without success: false');
      else if (body.errors !== undefined && !(Array.isArray(body.errors) && body.errors.every(isDocumentedError)))
        problems.push('errors that are neither strings nor records not added');
    }
  }
  if (headers['x-powered-by'] !== undefined) problems.push('an X-Powered-By header');
  if (headers['x-content-type-options'] !== 'nosniff') problems.push('no X-Content-Type-Options: nosniff');
  if (headers.server !== undefined) problems.push('a Server header');
  // Recordings are audio: bytes, not words.
  if (!contentType.startsWith('audio/')) problems.push(...leaksIn(text));
  return problems;
}

/** What `text` gives away of the inside of the service, each with where. */
export function leaksIn(text: string): string[] {
  const problems: string[] = [];
  for (const [what, pattern] of LEAKS) {
    const found = pattern.exec(text);
    if (found) problems.push(`${what}: "${text.slice(Math.max(0, found.index - 40), found.index + 60)}"`);
  }
  return problems;
}
