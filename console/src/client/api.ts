/**
 * Every call of the console goes through the public API with the operator's token, as any client's
 * would: the console can do nothing a client cannot. Errors arrive in the API's envelope
 * (`{success: false, error, message, details?}`) and are thrown as ApiError with the API's own message,
 * which the pages show where the action was taken.
 */
import { storedSession } from './session';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details: unknown = undefined,
    readonly body: unknown = undefined,
  ) {
    super(message);
  }
}

export type Query = Record<string, string | number | boolean | undefined | null>;

/** The query string of the values given (empty ones left out). */
export function queryString(query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query))
    if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}

export function authHeaders(): Record<string, string> {
  const session = storedSession();
  return session ? { authorization: `Bearer ${session.token}` } : {};
}

/** Called when the API refuses the token (401): the app signs the operator out. */
let onUnauthorized: () => void = () => {};
export const whenUnauthorized = (handler: () => void) => void (onUnauthorized = handler);

/** What the envelope adds to its message: `details`, or the per-field `errors` a validation failure lists. */
function detailsOf(body: unknown): unknown {
  if (!body || typeof body !== 'object') return undefined;
  const { details, errors } = body as { details?: unknown; errors?: unknown };
  return details ?? (errors === undefined ? undefined : { errors });
}

function messageOf(status: number, body: unknown): string {
  if (body && typeof body === 'object' && typeof (body as { message?: unknown }).message === 'string')
    return (body as { message: string }).message;
  return `The service answered ${status}`;
}

/** A JSON call of the API (`path` below /api/v1): the answer's body, or an ApiError. */
export async function api<T = unknown>(method: string, path: string, body?: unknown, query?: Query): Promise<T> {
  const headers: Record<string, string> = { ...authHeaders() };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`/api/v1${path}${queryString(query)}`, {
    method,
    headers,
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  if (response.status === 401) onUnauthorized();
  // A bulk add answers 207 (some added) and 400 (none added) with its per-record errors: the page reads those.
  if (!response.ok && response.status !== 207)
    throw new ApiError(response.status, messageOf(response.status, parsed), detailsOf(parsed), parsed);
  return parsed as T;
}

/** A binary resource of the API (a recording) as a Blob, fetched with the token. */
export async function apiBlob(path: string): Promise<Blob> {
  const response = await fetch(`/api/v1${path}`, { headers: authHeaders() });
  if (!response.ok) {
    let body: unknown = undefined;
    try {
      body = await response.json();
    } catch {
      // not JSON
    }
    throw new ApiError(response.status, messageOf(response.status, body), undefined, body);
  }
  return response.blob();
}
