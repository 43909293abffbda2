/**
 * WhatsApp Cloud API webhooks (public routes under `/chat/v1`; they authenticate themselves):
 * - `GET /whatsapp/reports`: the subscription handshake: `hub.mode=subscribe` with an organization's
 *   verify token answers `hub.challenge` as text; anything else 403; each address may try a few times
 *   a second (`WHATSAPP_VERIFY_RATE_LIMIT_*`), 429 beyond, so that verify tokens cannot be guessed;
 * - `POST /whatsapp/reports`: a signed payload (`X-Hub-Signature-256` over the raw body) of statuses
 *   and customer messages, taken in by infrastructure/whatsapp/whatsapp-webhooks.ts; 403 when its
 *   signature does not hold for every organization it names, 200 once it is recorded (a store failure
 *   answers 5xx and Meta delivers it again, which changes nothing already recorded).
 */
import { Type } from '@sinclair/typebox';
import { HttpError } from '../http/errors';
import { readRawBody } from '../http/raw-body';
import { remoteAddress, tokenBuckets, tooManyRequests, type RateLimits } from '../http/rate-limit';
import { route, type RouteSpec } from '../http/route';
import { SIGNATURE_HEADER } from '../../infrastructure/whatsapp/signature';
import type { WhatsAppWebhooks } from '../../infrastructure/whatsapp/whatsapp-webhooks';

export const WHATSAPP_FORBIDDEN = 'Invalid or missing X-Hub-Signature-256';
export const WHATSAPP_VERIFY_FORBIDDEN = 'Verify token does not match';

/** The payload as documented (read and checked by the handler: its signature comes first). */
const WhatsAppWebhookBody = Type.Object({
  object: Type.Literal('whatsapp_business_account'),
  entry: Type.Array(
    Type.Object({
      id: Type.String(),
      changes: Type.Array(Type.Object({ field: Type.String(), value: Type.Record(Type.String(), Type.Unknown()) })),
    }),
  ),
});

const queryText = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export function whatsappRoutes(webhooks: WhatsAppWebhooks, verifyLimits: RateLimits): RouteSpec[] {
  const handshakes = tokenBuckets(verifyLimits);
  return [
    route({
      method: 'get',
      path: '/whatsapp/reports',
      operationId: 'verifyWhatsAppWebhook',
      summary: "WhatsApp's webhook subscription handshake (an organization's verify token)",
      query: ['hub.mode', 'hub.verify_token', 'hub.challenge'],
      errors: [403, 429],
      success: { status: 200, description: 'The challenge, as sent', contentType: 'text/plain', schema: Type.String() },
      handler: async (req, res) => {
        const seconds = handshakes.take(remoteAddress(req));
        if (seconds > 0) {
          res.setHeader('Retry-After', String(seconds));
          throw new HttpError(429, tooManyRequests(handshakes, 'an address', seconds));
        }
        const { 'hub.mode': mode, 'hub.verify_token': token, 'hub.challenge': challenge } = req.query;
        if (!(await webhooks.subscribes(queryText(mode), queryText(token))))
          throw new HttpError(403, WHATSAPP_VERIFY_FORBIDDEN);
        res.type('text/plain').send(queryText(challenge) ?? '');
      },
    }),
    route({
      method: 'post',
      path: '/whatsapp/reports',
      operationId: 'receiveWhatsAppWebhook',
      summary: "WhatsApp's message statuses and customer messages (webhook; X-Hub-Signature-256)",
      body: WhatsAppWebhookBody,
      bodyCheck: 'handler',
      errors: [400, 403, 413],
      handler: async (req, res) => {
        const body = await readRawBody(req);
        const taken = await webhooks.receive(body, req.get(SIGNATURE_HEADER), res.locals.requestId as string);
        if (taken.outcome === 'malformed') throw new HttpError(400, 'Not a WhatsApp business account payload');
        if (taken.outcome === 'refused') throw new HttpError(403, WHATSAPP_FORBIDDEN);
        res.json({ success: true });
      },
    }),
  ];
}
