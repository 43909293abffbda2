/**
 * Twilio's webhooks (security `public`, under `/carrier/v1`): each request is form-encoded and signed
 * with the auth token of the Twilio account it names (X-Twilio-Signature over PUBLIC_URL, the path
 * and query Twilio called, and the form's parameters), so each route reads its own body and checks the
 * signature before anything else. What the webhooks do is in infrastructure/twilio/webhooks.ts.
 *
 * - `POST /twilio/reports?callId=…[&kind=recording]`: the status and recording callbacks of a call;
 * - `POST /twilio/voice`: a number's Voice URL, for the calls that come in to it.
 *
 * Both answer TwiML (text/xml): nothing more for a callback; for a call, its recording started and
 * the media stream, or a refusal.
 */
import type { Request, Response } from 'express';
import {
  twilioWebhooks,
  type CallbackOutcome,
  type TwilioSender,
  type TwilioWebhookDeps,
} from '../../infrastructure/twilio/webhooks';
import { formParamsOf, TWILIO_SIGNATURE_HEADER, type FormParams } from '../../infrastructure/twilio/signature';
import { emptyTwiml, TWIML_CONTENT_TYPE } from '../../infrastructure/twilio/twiml';
import { HttpError } from '../http/errors';
import { readRawBody } from '../http/raw-body';
import { route, type RouteSpec } from '../http/route';

export const TWILIO_SIGNATURE_INVALID = 'Missing or invalid X-Twilio-Signature';
export const TWILIO_CALL_NOT_FOUND = 'Call not found';
export const TWILIO_CALL_FORBIDDEN = 'Access denied - Call belongs to another organization';

const TWIML = { status: 200, description: 'TwiML', contentType: TWIML_CONTENT_TYPE };

export function twilioRoutes(deps: TwilioWebhookDeps): RouteSpec[] {
  const webhooks = twilioWebhooks(deps);

  /** The request's form parameters and the organization whose Twilio account signed them; 403 otherwise. */
  async function signed(req: Request): Promise<{ params: FormParams; sender: TwilioSender }> {
    const params = formParamsOf((await readRawBody(req)).toString('utf8'));
    const signature = req.get(TWILIO_SIGNATURE_HEADER);
    const sender = await webhooks.authenticate(req.originalUrl, params, signature);
    if (!sender) throw new HttpError(403, TWILIO_SIGNATURE_INVALID);
    return { params, sender };
  }

  const twiml = (res: Response, body: string) => res.status(200).type(TWIML_CONTENT_TYPE).send(body);
  const answered = (outcome: CallbackOutcome) => {
    if (outcome === 'call_not_found') throw new HttpError(404, TWILIO_CALL_NOT_FOUND);
    if (outcome === 'other_organization') throw new HttpError(403, TWILIO_CALL_FORBIDDEN);
  };
  const queryOf = (req: Request, name: string) => {
    const value = req.query[name];
    return typeof value === 'string' && value !== '' ? value : null;
  };

  return [
    route({
      method: 'post',
      path: '/twilio/reports',
      operationId: 'receiveTwilioCallback',
      summary: "Twilio's status and recording callbacks of a call (form-encoded; X-Twilio-Signature)",
      query: ['callId', 'kind'],
      errors: [403, 404, 413],
      success: TWIML,
      handler: async (req, res) => {
        const { params, sender } = await signed(req);
        const requestId = res.locals.requestId as string;
        const callId = queryOf(req, 'callId');
        answered(
          queryOf(req, 'kind') === 'recording'
            ? await webhooks.recordingStatus(sender, callId, params, requestId)
            : await webhooks.callStatus(sender, callId, params, requestId),
        );
        twiml(res, emptyTwiml());
      },
    }),
    route({
      method: 'post',
      path: '/twilio/voice',
      operationId: 'receiveTwilioIncomingCall',
      summary: "A call that came in to one of the organization's Twilio numbers (Voice URL; X-Twilio-Signature)",
      errors: [403, 413],
      success: TWIML,
      handler: async (req, res) => {
        const { params, sender } = await signed(req);
        twiml(res, await webhooks.incomingCall(sender, params, res.locals.requestId as string));
      },
    }),
  ];
}
