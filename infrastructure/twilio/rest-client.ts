/**
 * The part of Twilio's REST API the service uses (API version 2010-04-01): create a call, fetch a
 * call's recording, and, before an account or a number is claimed, fetch the account and look a number
 * up among its incoming numbers. Requests authenticate with the account's SID and auth token (HTTP basic)
 * and send their parameters form-encoded, a parameter with several values repeated once per value.
 *
 * Twilio answers an error with JSON `{code, message, more_info, status}`. A 4xx is a refusal (bad
 * credentials, an invalid number): trying again changes nothing, and the call fails with Twilio's
 * message. A 5xx, or no answer at all, is Twilio being away for a moment: `TwilioUnavailableError`
 * carries `type: 'unavailable'`, the mark `isTransient` (infrastructure/shared/transient-errors.ts)
 * knows passing unavailability by.
 */
import type { TwilioAccount } from '../../application/ports/provider-accounts';

export type Fetch = typeof globalThis.fetch;

export const TWILIO_API_VERSION = '2010-04-01';
const TIMEOUT_MS = 15_000;
const JSON_ACCEPT = { Accept: 'application/json' };

/** A Twilio error answer: what Twilio said, and its error code (https://www.twilio.com/docs/api/errors). */
export class TwilioRefusedError extends Error {
  constructor(
    readonly status: number,
    readonly code: number | null,
    message: string,
    readonly moreInfo: string | null,
  ) {
    super(code === null ? `Twilio refused the request (${status}): ${message}` : `Twilio error ${code}: ${message}`);
    this.name = 'TwilioRefusedError';
  }
}

/** Twilio did not answer, or answered 5xx: the same request may succeed shortly. */
export class TwilioUnavailableError extends Error {
  readonly type = 'unavailable';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TwilioUnavailableError';
  }
}

/** What a call is created with (the Calls resource's parameters, by their Twilio names). */
export type CreateCallParams = {
  To: string;
  From: string;
  Twiml: string;
  StatusCallback: string;
  StatusCallbackEvent: readonly string[];
  StatusCallbackMethod: 'POST';
  Record: boolean;
  RecordingStatusCallback: string;
  RecordingStatusCallbackEvent: readonly string[];
  RecordingStatusCallbackMethod: 'POST';
};

/** The fields of Twilio's call resource the adapter reads. */
export type TwilioCall = { sid: string; status: string };

export type TwilioRestClient = {
  createCall(account: TwilioAccount, params: CreateCallParams): Promise<TwilioCall>;
  /** The recording's audio as WAV; `recordingUrl` must be on Twilio's API (the credentials go nowhere else). */
  fetchRecording(account: TwilioAccount, recordingUrl: string): Promise<Buffer>;
  /** The account resource, fetched with its own credentials (Twilio answers 401 to any others). */
  fetchAccount(account: TwilioAccount): Promise<{ sid: string; status: string }>;
  /** Whether `number` (E.164) is one of the account's incoming phone numbers. */
  holdsNumber(account: TwilioAccount, number: string): Promise<boolean>;
};

export function twilioRestClient(options: { apiUrl: string; fetch?: Fetch; timeoutMs?: number }): TwilioRestClient {
  const apiUrl = options.apiUrl.replace(/\/+$/, '');
  const fetch = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.timeoutMs ?? TIMEOUT_MS;

  async function request(account: TwilioAccount, url: string, init: RequestInit): Promise<Response> {
    const basic = Buffer.from(`${account.accountSid}:${account.authToken}`).toString('base64');
    let response: Response;
    try {
      response = await fetch(url, {
        ...init,
        headers: { ...init.headers, Authorization: `Basic ${basic}` },
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new TwilioUnavailableError(`Twilio could not be reached: ${describe(error)}`, { cause: error });
    }
    if (response.ok) return response;
    const text = await response.text().catch(() => '');
    if (response.status >= 500)
      throw new TwilioUnavailableError(`Twilio answered ${response.status}: ${twilioErrorOf(text)?.message ?? text}`);
    const error = twilioErrorOf(text);
    throw new TwilioRefusedError(
      response.status,
      error?.code ?? null,
      error?.message ?? (text.slice(0, 200) || response.statusText),
      error?.moreInfo ?? null,
    );
  }

  return {
    async createCall(account, params) {
      const form = new URLSearchParams();
      for (const [name, value] of Object.entries(params))
        for (const one of Array.isArray(value) ? value : [value]) form.append(name, String(one));
      const url = accountUrl(account, '/Calls');
      const response = await request(account, url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
        body: form.toString(),
      });
      const call = (await response.json()) as Partial<TwilioCall>;
      if (typeof call.sid !== 'string') throw new TwilioRefusedError(response.status, null, 'no call sid', null);
      return { sid: call.sid, status: String(call.status ?? 'queued') };
    },

    async fetchRecording(account, recordingUrl) {
      if (!isOn(apiUrl, recordingUrl))
        throw new TwilioRefusedError(400, null, `Recording URL ${recordingUrl} is not on ${apiUrl}`, null);
      const response = await request(account, `${recordingUrl.replace(/\.(wav|mp3|json)$/, '')}.wav`, {
        method: 'GET',
        headers: { Accept: 'audio/wav' },
      });
      return Buffer.from(await response.arrayBuffer());
    },

    async fetchAccount(account) {
      const response = await request(account, accountUrl(account), { method: 'GET', headers: JSON_ACCEPT });
      const body = (await response.json().catch(() => null)) as { sid?: unknown; status?: unknown } | null;
      if (typeof body?.sid !== 'string') throw new TwilioUnavailableError('Twilio answered an account without a sid');
      return { sid: body.sid, status: String(body.status ?? '') };
    },

    async holdsNumber(account, number) {
      const query = new URLSearchParams({ PhoneNumber: number, PageSize: '20' });
      const url = `${accountUrl(account, '/IncomingPhoneNumbers')}?${query.toString()}`;
      const response = await request(account, url, { method: 'GET', headers: JSON_ACCEPT });
      const body = (await response.json().catch(() => null)) as { incoming_phone_numbers?: unknown } | null;
      const numbers = body?.incoming_phone_numbers;
      if (!Array.isArray(numbers)) throw new TwilioUnavailableError('Twilio answered a list without incoming numbers');
      // The filter matches parts of numbers too: only the exact number counts.
      return numbers.some((n) => (n as { phone_number?: unknown } | null)?.phone_number === number);
    },
  };

  function accountUrl(account: TwilioAccount, resource = ''): string {
    return `${apiUrl}/${TWILIO_API_VERSION}/Accounts/${encodeURIComponent(account.accountSid)}${resource}.json`;
  }
}

/** Whether `url` is an address under `base` (same origin, below its path). */
function isOn(base: string, url: string): boolean {
  try {
    const b = new URL(base);
    const u = new URL(url);
    return u.origin === b.origin && u.pathname.startsWith(b.pathname.replace(/\/?$/, '/'));
  } catch {
    return false;
  }
}

function twilioErrorOf(text: string): { code: number | null; message: string; moreInfo: string | null } | null {
  try {
    const body = JSON.parse(text) as { code?: unknown; message?: unknown; more_info?: unknown };
    if (typeof body.message !== 'string') return null;
    return {
      code: typeof body.code === 'number' ? body.code : null,
      message: body.message,
      moreInfo: typeof body.more_info === 'string' ? body.more_info : null,
    };
  } catch {
    return null;
  }
}

const describe = (error: unknown) => {
  const cause = (error as { cause?: { code?: unknown } }).cause;
  const code = typeof cause?.code === 'string' ? ` (${cause.code})` : '';
  return `${error instanceof Error ? error.message : String(error)}${code}`;
};
