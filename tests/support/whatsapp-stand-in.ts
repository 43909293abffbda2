/**
 * A stand-in for WhatsApp's Graph API and its webhooks, speaking the documented wire format for what
 * the chat adapter uses. `POST /{version}/{phone-number-id}/messages` checks the bearer token (401,
 * code 190), the business number (400, code 100) and the recipient and message (400, code 100 with
 * `error_data.details`), answers a taken message as the Cloud API does (`contacts`, `messages[].id`),
 * then plays it: it posts signed webhooks (`X-Hub-Signature-256` with the app secret) of its statuses,
 * `sent`, `delivered`, `read`, or `sent` then `failed` with an `errors` array, and for a customer who
 * answers, their reply. Any webhook can be posted again (Meta retries), and a customer can write first.
 *
 * `GET /{version}/{phone-number-id}` and `GET /{version}/{business-account-id}/phone_numbers` answer the
 * business number (`id`, `display_phone_number`, `verified_name`…) to the account's own token: 401 code
 * 190 for another token, 400 code 100 (subcode 33) for an id the token cannot see. With `outage` set,
 * every request is answered 503 (code 2, service unavailable).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { signatureOf } from '../../infrastructure/whatsapp/signature';

/** What becomes of a message to a number: read, read then answered, or undeliverable. */
export type StandInFate = 'read' | 'replied' | 'failed';

export type WhatsAppStandInOptions = {
  accessToken: string;
  appSecret: string;
  phoneNumberId: string;
  /** The business number, digits, as `metadata.display_phone_number` shows it. */
  displayPhoneNumber: string;
  businessAccountId?: string;
  /** The fate of a message by its recipient (digits); read by default. */
  fateOf?: (to: string) => StandInFate;
  /** What a customer who answers writes. */
  replyText?: (to: string) => string;
};

export type StandInRequest = { sent: unknown; status: number; answer: unknown };

/** A webhook posted: `wamid` is the message it is about (for a customer's reply, the message answered). */
export type StandInWebhook = { wamid: string; payload: unknown; answers: number[] };

export type WhatsAppStandIn = {
  /** The Graph API's base URL (WHATSAPP_GRAPH_URL). */
  url: string;
  /** Where webhooks go from now on. */
  deliverTo(url: string): void;
  /** The send requests it took or refused: the body posted (null when none parsed), and the answer. */
  readonly requests: StandInRequest[];
  /** The webhooks posted, each with the status of each delivery. */
  readonly webhooks: StandInWebhook[];
  /** The errors the `failed` status of a message carried, as sent. */
  errorsOf(wamid: string): unknown[];
  /** Posts every webhook of a message again, as Meta does when it retries. */
  replay(wamid: string): Promise<void>;
  /** A customer writes first to the business number: the message's id. */
  customerWrites(from: string, text: string): Promise<string>;
  /** While true, every request is answered 503, as during an outage. */
  outage: boolean;
  /** Resolves when every webhook under way has been answered. */
  idle(): Promise<void>;
  close(): Promise<void>;
};

const ERROR_CODES_URL = 'https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/';
const fbtraceId = () => randomBytes(9).toString('base64url');
const graphError = (message: string, type: string, code: number, details?: string, subcode?: number) => ({
  error: {
    message,
    type,
    code,
    ...(details !== undefined && { error_data: { messaging_product: 'whatsapp', details } }),
    ...(subcode !== undefined && { error_subcode: subcode }),
    fbtrace_id: fbtraceId(),
  },
});
/** The error of a message WhatsApp could not deliver, as a `failed` status carries it. */
const UNDELIVERABLE = {
  code: 131026,
  title: 'Message undeliverable',
  message: 'Message undeliverable',
  error_data: { details: 'Message Undeliverable.' },
  href: ERROR_CODES_URL,
};

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

type Sent = { to: string; callbackData: string | null };

/** Why a send request is not a message the Cloud API takes, or null. */
function invalidRequest(body: Record<string, any>): string | null {
  if (body.messaging_product !== 'whatsapp') return 'The parameter messaging_product is required.';
  if (typeof body.to !== 'string' || !/^\+?\d{8,15}$/.test(body.to))
    return `The parameter to is not a valid WhatsApp phone number: ${JSON.stringify(body.to ?? null)}.`;
  if (body.type === 'template') {
    const t = body.template;
    if (typeof t?.name !== 'string' || typeof t?.language?.code !== 'string')
      return 'The parameter template requires name and language.code.';
    return null;
  }
  if (body.type === 'text' || body.type === undefined)
    return typeof body.text?.body === 'string' && body.text.body !== '' ? null : 'The parameter text.body is required.';
  return `Unsupported message type ${String(body.type)}.`;
}

export async function startWhatsAppStandIn(options: WhatsAppStandInOptions): Promise<WhatsAppStandIn> {
  const requests: StandInRequest[] = [];
  const webhooks: StandInWebhook[] = [];
  const failures = new Map<string, unknown[]>();
  const underWay = new Set<Promise<unknown>>();
  let webhookUrl: string | null = null;
  const seconds = () => String(Math.floor(Date.now() / 1000));
  const newWamid = () => `wamid.${randomBytes(24).toString('base64')}`;

  const envelope = (value: Record<string, unknown>) => ({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: options.businessAccountId ?? '102290129340398',
        changes: [
          {
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: options.displayPhoneNumber, phone_number_id: options.phoneNumberId },
              ...value,
            },
            field: 'messages',
          },
        ],
      },
    ],
  });

  async function deliver(webhook: StandInWebhook): Promise<void> {
    if (!webhookUrl) throw new Error('the stand-in has no webhook URL to post to');
    const body = JSON.stringify(webhook.payload);
    const response = await fetch(webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': signatureOf(options.appSecret, body) },
      body,
    });
    await response.arrayBuffer();
    webhook.answers.push(response.status);
  }

  async function idle(): Promise<void> {
    while (underWay.size > 0) await Promise.allSettled([...underWay]);
  }

  function track<T>(work: Promise<T>): Promise<T> {
    underWay.add(work);
    void work.finally(() => underWay.delete(work)).catch(() => undefined);
    return work;
  }

  async function post(wamid: string, value: Record<string, unknown>): Promise<void> {
    const webhook: StandInWebhook = { wamid, payload: envelope(value), answers: [] };
    webhooks.push(webhook);
    await deliver(webhook);
  }

  const status = (wamid: string, sent: Sent, state: string, extra: Record<string, unknown> = {}) =>
    post(wamid, {
      statuses: [
        {
          id: wamid,
          status: state,
          timestamp: seconds(),
          recipient_id: sent.to,
          ...(sent.callbackData !== null && { biz_opaque_callback_data: sent.callbackData }),
          ...extra,
        },
      ],
    });

  /** A customer's message; its webhook goes with `about`, the message it answers (itself when it opens a chat). */
  const customerMessage = (about: string, from: string, id: string, text: string) =>
    post(about, {
      contacts: [{ profile: { name: 'Customer' }, wa_id: from }],
      messages: [{ from, id, timestamp: seconds(), type: 'text', text: { body: text } }],
    });

  /** Plays a taken message: its statuses, and the customer's answer when it has one. */
  async function play(wamid: string, sent: Sent): Promise<void> {
    const fate = options.fateOf?.(sent.to) ?? 'read';
    const pricing = { billable: true, pricing_model: 'PMP', category: 'utility', type: 'regular' };
    await status(wamid, sent, 'sent', { pricing });
    if (fate === 'failed') {
      const errors = [UNDELIVERABLE];
      failures.set(wamid, errors);
      await status(wamid, sent, 'failed', { errors });
      return;
    }
    await status(wamid, sent, 'delivered', { pricing });
    await status(wamid, sent, 'read');
    if (fate === 'replied')
      await customerMessage(wamid, sent.to, newWamid(), options.replyText?.(sent.to) ?? 'Yes, I will pay on Friday.');
  }

  async function answerSend(req: IncomingMessage, path: string): Promise<{ status: number; body: unknown }> {
    const seen: { body: unknown } = { body: null };
    const answer = await answerMessage(req, path, seen);
    requests.push({ sent: seen.body, status: answer.status, answer: answer.body });
    return answer;
  }

  async function answerMessage(
    req: IncomingMessage,
    path: string,
    seen: { body: unknown },
  ): Promise<{ status: number; body: unknown }> {
    const match = /^\/(v\d+\.\d+)\/([^/]+)\/messages$/.exec(path);
    if (req.method !== 'POST' || !match)
      return { status: 400, body: graphError('Unknown path components', 'OAuthException', 2500) };
    if (req.headers.authorization !== `Bearer ${options.accessToken}`)
      return {
        status: 401,
        body: graphError('Invalid OAuth access token - Cannot parse access token', 'OAuthException', 190),
      };
    if (match[2] !== options.phoneNumberId)
      return {
        status: 400,
        body: graphError(
          `Unsupported post request. Object with ID '${match[2]}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
          'GraphMethodException',
          100,
          undefined,
          33,
        ),
      };
    let body: Record<string, any>;
    try {
      body = JSON.parse(await readBody(req)) as Record<string, any>;
      seen.body = body;
    } catch {
      return { status: 400, body: graphError('(#100) Invalid parameter', 'OAuthException', 100, 'Invalid JSON.') };
    }
    const invalid = invalidRequest(body);
    if (invalid) return { status: 400, body: graphError('(#100) Invalid parameter', 'OAuthException', 100, invalid) };
    const to = (body.to as string).replace(/\D/g, '');
    const wamid = newWamid();
    const callbackData = typeof body.biz_opaque_callback_data === 'string' ? body.biz_opaque_callback_data : null;
    // Played once the answer is on its way, as WhatsApp's webhooks follow its answer.
    setImmediate(() => void track(play(wamid, { to, callbackData })));
    return {
      status: 200,
      body: {
        messaging_product: 'whatsapp',
        contacts: [{ input: body.to, wa_id: to }],
        messages: [{ id: wamid, ...(body.type === 'template' && { message_status: 'accepted' }) }],
      },
    };
  }

  const number = () => ({
    verified_name: 'Stand-in Business',
    code_verification_status: 'VERIFIED',
    display_phone_number: options.displayPhoneNumber,
    quality_rating: 'GREEN',
    id: options.phoneNumberId,
  });
  const unknownObject = (id: string) =>
    graphError(
      `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
      'GraphMethodException',
      100,
      undefined,
      33,
    );

  /** A business number, or a business account's numbers, to the account's token. */
  function answerRead(req: IncomingMessage, path: string): { status: number; body: unknown } | null {
    const match = /^\/v\d+\.\d+\/(\d+)(\/phone_numbers)?$/.exec(path);
    if (req.method !== 'GET' || !match) return null;
    if (req.headers.authorization !== `Bearer ${options.accessToken}`)
      return {
        status: 401,
        body: graphError('Invalid OAuth access token - Cannot parse access token', 'OAuthException', 190),
      };
    const [, id, listing] = match;
    const businessAccount = options.businessAccountId ?? '102290129340398';
    if (listing && id === businessAccount)
      return { status: 200, body: { data: [number()], paging: { cursors: { before: 'QVFI', after: 'QVFI' } } } };
    if (!listing && id === options.phoneNumberId) return { status: 200, body: number() };
    return { status: 400, body: unknownObject(id!) };
  }

  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://stand-in').pathname;
    const read = standIn.outage
      ? { status: 503, body: graphError('Service temporarily unavailable', 'OAuthException', 2) }
      : answerRead(req, path);
    (read ? Promise.resolve(read) : answerSend(req, path))
      .then(({ status, body }) => {
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      })
      .catch((error: unknown) => res.writeHead(500).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const standIn: WhatsAppStandIn = {
    url,
    outage: false,
    deliverTo: (to) => void (webhookUrl = to),
    requests,
    webhooks,
    errorsOf: (wamid) => failures.get(wamid) ?? [],
    replay: (wamid) =>
      track(
        (async () => {
          for (const webhook of webhooks.filter((w) => w.wamid === wamid)) await deliver(webhook);
        })(),
      ),
    customerWrites: (from, text) => {
      const id = newWamid();
      return track(customerMessage(id, from.replace(/\D/g, ''), id, text)).then(() => id);
    },
    idle,
    async close() {
      await idle();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return standIn;
}
