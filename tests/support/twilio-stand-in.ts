/**
 * A stand-in for Twilio's voice API, on a local port, speaking Twilio's documented wire format for
 * what the adapter uses:
 *
 * - `POST /2010-04-01/Accounts/{AccountSid}/Calls.json` (basic auth AccountSid:AuthToken, form-encoded):
 *   201 with a call resource (`status: queued`); 401 `{code: 20003, message: 'Authenticate'}` for bad
 *   credentials; 400 `{code: 21211}` for a `To` that is not a phone number, 21603 without `From`, 21205
 *   without `Url` or `Twiml`;
 * - then it plays the call: signed, form-encoded status callbacks to `StatusCallback` (initiated,
 *   ringing, then in-progress and completed with CallDuration, or busy / no-answer / failed), and,
 *   for an answered call created with `Record=true`, a recording-status callback whose RecordingUrl is
 *   served here (`GET …/Recordings/{RecordingSid}.wav`, basic auth) as a small WAV;
 * - for a call the service answered with TwiML that starts a recording (`<Start><Recording>`, an
 *   incoming call's), what Twilio does once that call ended (`completeRecording`): the recording is
 *   served here and its status callback posted to the TwiML's `recordingStatusCallback`.
 *
 * - `GET /2010-04-01/Accounts/{AccountSid}.json`: 200 with the account resource for that account's own
 *   credentials, 401 `{code: 20003}` for any others;
 * - `GET /2010-04-01/Accounts/{AccountSid}/IncomingPhoneNumbers.json?PhoneNumber=…`: the account's
 *   incoming numbers matching the filter, as Twilio's paged list (`incoming_phone_numbers`, `page`…).
 *
 * A number can be told how its calls go (`outcomeFor`), every callback can be sent twice (`repeat`),
 * as Twilio does when it retries, and the whole API can be made to answer 503 (`outage`).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { TwilioAccount } from '../../application/ports/provider-accounts';
import { twilioSignature } from '../../infrastructure/twilio/signature';

export type StandInOutcome = 'answered' | 'busy' | 'no-answer' | 'failed';

export type PlacedCall = { sid: string; accountSid: string; params: [string, string][] };
export type SentCallback = { url: string; params: [string, string][]; status: number; body: string };

/** An account the stand-in knows: its credentials, and the numbers it holds (E.164). */
export type StandInAccount = TwilioAccount & { incomingNumbers?: string[] };

export type TwilioStandIn = {
  /** The API's base address (TWILIO_API_URL). */
  url: string;
  /** Another account (or another auth token of one, as Twilio's secondary token) known from now on. */
  addAccount(account: StandInAccount): void;
  /** An auth token of an account Twilio no longer accepts (changed at the console, say). */
  revoke(account: TwilioAccount): void;
  /** While true, every request is answered 503 (Twilio's `{code: 20500}`), as during an outage. */
  outage: boolean;
  /** The calls created, with the parameters they were created with. */
  calls: PlacedCall[];
  /** Every callback sent, with our answer. */
  callbacks: SentCallback[];
  /** How many times a recording was fetched. */
  recordingFetches: number;
  /** How the calls to `to` go (default: answered). */
  outcomeFor(to: string, outcome: StandInOutcome): void;
  /** Each callback is sent twice (a retry after an answer Twilio did not see). */
  repeat: boolean;
  /** The talk time of answered calls, in seconds. */
  durationSeconds: number;
  /** Resolves once every call played so far has sent all its callbacks. */
  idle(): Promise<void>;
  /**
   * Once the call `callSid`, answered with `twiml`, ended: when the TwiML started a recording whose
   * status callback asks for `completed`, the recording is served here and its signed callback posted
   * to the TwiML's `recordingStatusCallback` (twice with `repeat`). Answers the RecordingSid, or null
   * when the TwiML records nothing.
   */
  completeRecording(twiml: string, call: { accountSid: string; callSid: string }): Promise<string | null>;
  /** Posts `params` to `url`, signed as Twilio signs with `authToken` (an incoming call's Voice URL, say). */
  post(url: string, params: [string, string][], authToken: string): Promise<{ status: number; body: string }>;
  close(): Promise<void>;
};

/** A sid as Twilio makes them: two letters and 32 hex digits. */
export const twilioSid = (prefix: 'CA' | 'RE' | 'AC') => `${prefix}${randomBytes(16).toString('hex')}`;

const E164 = /^\+[1-9]\d{1,14}$/;
const API = '/2010-04-01/Accounts/';

/** A second of 8 kHz 16-bit mono silence, as a WAV file. */
export function silentWav(samples = 8000): Buffer {
  const data = samples * 2;
  const wav = Buffer.alloc(44 + data);
  wav.write('RIFF', 0);
  wav.writeUInt32LE(36 + data, 4);
  wav.write('WAVEfmt ', 8);
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20);
  wav.writeUInt16LE(1, 22);
  wav.writeUInt32LE(8000, 24);
  wav.writeUInt32LE(16000, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write('data', 36);
  wav.writeUInt32LE(data, 40);
  return wav;
}

const rfc2822 = (date: Date) => date.toUTCString().replace('GMT', '+0000');

const unescapeXml = (text: string) =>
  text.replace(
    /&(lt|gt|quot|apos|amp);/g,
    (_, name: string) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[name]!,
  );

/** The attributes of the `<Recording>` a TwiML document starts (`<Start><Recording .../>`), or null. */
function startedRecordingOf(twiml: string): Map<string, string> | null {
  const recording = /<Start>\s*<Recording\b([^>]*?)\/?>/.exec(twiml);
  if (!recording) return null;
  return new Map(
    [...recording[1]!.matchAll(/(\w+)="([^"]*)"/g)].map(([, name, value]) => [name!, unescapeXml(value!)]),
  );
}

export async function startTwilioStandIn(options: { accounts: StandInAccount[] }): Promise<TwilioStandIn> {
  const accounts = [...options.accounts];
  const outcomes = new Map<string, StandInOutcome>();
  const playing = new Set<Promise<void>>();
  const recordings = new Set<string>();
  const wav = silentWav();

  const accountOf = (req: IncomingMessage): StandInAccount | null => {
    const header = req.headers.authorization ?? '';
    if (!header.startsWith('Basic ')) return null;
    const [sid, token] = Buffer.from(header.slice(6), 'base64').toString('utf8').split(':');
    return accounts.find((a) => a.accountSid === sid && a.authToken === token) ?? null;
  };
  const json = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  const error = (res: ServerResponse, status: number, code: number, message: string) =>
    json(res, status, { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });

  async function post(url: string, params: [string, string][], authToken: string) {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        'X-Twilio-Signature': twilioSignature(authToken, url, params),
      },
      body: new URLSearchParams(params).toString(),
    });
    return { status: response.status, body: await response.text() };
  }

  async function callback(url: string, params: [string, string][], authToken: string) {
    for (let i = 0; i < (standIn.repeat ? 2 : 1); i++) {
      const answer = await post(url, params, authToken).catch((e: unknown) => ({ status: 0, body: String(e) }));
      standIn.callbacks.push({ url, params, ...answer });
    }
  }

  /** Sends the call's callbacks in the order Twilio would. */
  async function play(account: TwilioAccount, sid: string, form: URLSearchParams) {
    const statusUrl = form.get('StatusCallback');
    const events = new Set(form.getAll('StatusCallbackEvent'));
    const to = form.get('To')!;
    const outcome = outcomes.get(to) ?? 'answered';
    let sequence = 0;
    const common = (status: string): [string, string][] => [
      ['AccountSid', account.accountSid],
      ['ApiVersion', '2010-04-01'],
      ['CallSid', sid],
      ['CallStatus', status],
      ['CallbackSource', 'call-progress-events'],
      ['Direction', 'outbound-api'],
      ['From', form.get('From')!],
      ['SequenceNumber', String(sequence++)],
      ['Timestamp', rfc2822(new Date())],
      ['To', to],
    ];
    const status = async (event: string, status: string, extra: [string, string][] = []) => {
      if (statusUrl && (events.has(event) || event === 'completed'))
        await callback(statusUrl, [...common(status), ...extra], account.authToken);
    };
    await status('initiated', 'initiated');
    if (outcome !== 'failed') await status('ringing', 'ringing');
    if (outcome !== 'answered') return status('completed', outcome);
    await status('answered', 'in-progress');
    await status('completed', 'completed', [
      ['CallDuration', String(standIn.durationSeconds)],
      ['Duration', String(Math.ceil(standIn.durationSeconds / 60))],
    ]);
    const recordingUrl = form.get('RecordingStatusCallback');
    if (form.get('Record') !== 'true' || !recordingUrl) return;
    await recorded(account, sid, recordingUrl, [['RecordingSource', 'OutboundAPI']]);
  }

  /** A recording of the call `callSid`, served here from now on, reported completed to `statusUrl`. */
  async function recorded(account: TwilioAccount, callSid: string, statusUrl: string, extra: [string, string][]) {
    const recordingSid = twilioSid('RE');
    recordings.add(recordingSid);
    await callback(
      statusUrl,
      [
        ['AccountSid', account.accountSid],
        ['CallSid', callSid],
        ['RecordingChannels', '1'],
        ['RecordingDuration', String(standIn.durationSeconds)],
        ['RecordingSid', recordingSid],
        ...extra,
        ['RecordingStartTime', rfc2822(new Date())],
        ['RecordingStatus', 'completed'],
        ['RecordingUrl', `${standIn.url}${API}${account.accountSid}/Recordings/${recordingSid}`],
      ],
      account.authToken,
    );
    return recordingSid;
  }

  function createCall(req: IncomingMessage, res: ServerResponse, accountSid: string, body: string) {
    const account = accountOf(req);
    if (!account || account.accountSid !== accountSid) return error(res, 401, 20003, 'Authenticate');
    const form = new URLSearchParams(body);
    const to = form.get('To') ?? '';
    if (!form.get('From')) return error(res, 400, 21603, "A 'From' phone number is required.");
    if (!E164.test(to)) return error(res, 400, 21211, `The 'To' number ${to} is not a valid phone number.`);
    if (!form.get('Url') && !form.get('Twiml')) return error(res, 400, 21205, 'Url parameter is required.');
    const sid = twilioSid('CA');
    standIn.calls.push({ sid, accountSid, params: [...form] });
    const now = new Date().toUTCString().replace('GMT', '+0000');
    json(res, 201, {
      account_sid: accountSid,
      api_version: '2010-04-01',
      date_created: now,
      date_updated: now,
      direction: 'outbound-api',
      duration: null,
      end_time: null,
      from: form.get('From'),
      price: null,
      sid,
      start_time: null,
      status: 'queued',
      to,
      uri: `${API}${accountSid}/Calls/${sid}.json`,
    });
    // Twilio places the call after it answered the request.
    const played = new Promise<void>((resolve) => setImmediate(resolve)).then(() => play(account, sid, form));
    playing.add(played);
    void played.finally(() => playing.delete(played));
  }

  /** The account resource, to its own credentials only. */
  function fetchAccount(req: IncomingMessage, res: ServerResponse, accountSid: string) {
    const account = accountOf(req);
    if (!account || account.accountSid !== accountSid) return error(res, 401, 20003, 'Authenticate');
    const now = rfc2822(new Date());
    json(res, 200, {
      auth_token: account.authToken,
      date_created: now,
      date_updated: now,
      friendly_name: `Account ${accountSid.slice(-6)}`,
      owner_account_sid: accountSid,
      sid: accountSid,
      status: 'active',
      subresource_uris: { incoming_phone_numbers: `${API}${accountSid}/IncomingPhoneNumbers.json` },
      type: 'Full',
      uri: `${API}${accountSid}.json`,
    });
  }

  /** The account's incoming numbers containing the `PhoneNumber` filter, as one page of Twilio's list. */
  function listIncomingNumbers(req: IncomingMessage, res: ServerResponse, accountSid: string, query: URLSearchParams) {
    const account = accountOf(req);
    if (!account || account.accountSid !== accountSid) return error(res, 401, 20003, 'Authenticate');
    const filter = (query.get('PhoneNumber') ?? '').replace(/[^\d+]/g, '');
    const pageSize = Number(query.get('PageSize') ?? 50);
    const numbers = (account.incomingNumbers ?? []).filter((n) => n.includes(filter)).slice(0, pageSize);
    const uri = `${API}${accountSid}/IncomingPhoneNumbers.json?${query.toString()}`;
    json(res, 200, {
      end: Math.max(0, numbers.length - 1),
      first_page_uri: uri,
      incoming_phone_numbers: numbers.map((phone_number) => ({
        account_sid: accountSid,
        capabilities: { fax: false, mms: true, sms: true, voice: true },
        friendly_name: phone_number,
        phone_number,
        sid: `PN${randomBytes(16).toString('hex')}`,
        status: 'in-use',
      })),
      next_page_uri: null,
      page: 0,
      page_size: pageSize,
      previous_page_uri: null,
      start: 0,
      uri,
    });
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const [path, search] = (req.url ?? '').split('?') as [string, string | undefined];
      if (standIn.outage) return error(res, 503, 20500, 'Internal Server Error');
      const account = /^\/2010-04-01\/Accounts\/([^/]+)\.json$/.exec(path);
      if (req.method === 'GET' && account) return fetchAccount(req, res, account[1]!);
      const incoming = /^\/2010-04-01\/Accounts\/([^/]+)\/IncomingPhoneNumbers\.json$/.exec(path);
      if (req.method === 'GET' && incoming)
        return listIncomingNumbers(req, res, incoming[1]!, new URLSearchParams(search ?? ''));
      const call = /^\/2010-04-01\/Accounts\/([^/]+)\/Calls\.json$/.exec(path);
      if (req.method === 'POST' && call) return createCall(req, res, call[1]!, Buffer.concat(chunks).toString('utf8'));
      const recording = /^\/2010-04-01\/Accounts\/([^/]+)\/Recordings\/([^/.]+)\.wav$/.exec(path);
      if (req.method === 'GET' && recording) {
        const account = accountOf(req);
        if (!account || account.accountSid !== recording[1]) return error(res, 401, 20003, 'Authenticate');
        if (!recordings.has(recording[2]!))
          return error(res, 404, 20404, `The requested resource ${path} was not found`);
        standIn.recordingFetches++;
        return res.writeHead(200, { 'Content-Type': 'audio/x-wav' }).end(wav);
      }
      error(res, 404, 20404, `The requested resource ${path} was not found`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const standIn: TwilioStandIn = {
    url: `http://127.0.0.1:${port}`,
    addAccount: (account) => void accounts.push(account),
    revoke: ({ accountSid, authToken }) => {
      const at = accounts.findIndex((a) => a.accountSid === accountSid && a.authToken === authToken);
      if (at >= 0) accounts.splice(at, 1);
    },
    outage: false,
    calls: [],
    callbacks: [],
    recordingFetches: 0,
    repeat: false,
    durationSeconds: 42,
    outcomeFor: (to, outcome) => void outcomes.set(to, outcome),
    async completeRecording(twiml, call) {
      const account = accounts.find((a) => a.accountSid === call.accountSid);
      if (!account) throw new Error(`The stand-in has no account ${call.accountSid}`);
      const recording = startedRecordingOf(twiml);
      const statusUrl = recording?.get('recordingStatusCallback');
      // Twilio's defaults: the callback is POSTed, for the `completed` event only.
      const events = (recording?.get('recordingStatusCallbackEvent') ?? 'completed').split(/\s+/);
      const method = recording?.get('recordingStatusCallbackMethod') ?? 'POST';
      if (!statusUrl || !events.includes('completed') || method !== 'POST') return null;
      return recorded(account, call.callSid, statusUrl, []);
    },
    async idle() {
      while (playing.size > 0) await Promise.all([...playing]);
    },
    post,
    async close() {
      await standIn.idle();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return standIn;
}
