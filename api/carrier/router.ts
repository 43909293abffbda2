/**
 * The inbound event endpoint of telephony carriers: `POST /carrier/v1/{provider}/reports`, the path a
 * real carrier's webhooks call. The built-in carrier reports through the same `CarrierReports` in
 * process. Authenticated with the carrier's shared secret (`CARRIER_WEBHOOK_SECRET`), compared in
 * constant time; without a configured secret the endpoint refuses everything.
 */
import { Type } from '@sinclair/typebox';
import type { CarrierReports } from '../../application/calls/carrier-reports';
import { paramOf } from '../http/auth';
import { route, type RouteSpec } from '../http/route';
import { StringEnum } from '../http/schema';

export const CarrierReportBody = Type.Object({
  callId: Type.String({ minLength: 1, maxLength: 200 }),
  kind: StringEnum(['ringing', 'answered', 'ended']),
  at: Type.String({ format: 'date-time' }),
  status: Type.Optional(StringEnum(['Completed', 'No Contact', 'Failed'])),
  reason: Type.Optional(Type.String({ maxLength: 100 })),
  durationSeconds: Type.Optional(Type.Number({ minimum: 0 })),
  disposition: Type.Optional(Type.Union([Type.Object({ id: Type.String(), name: Type.String() }), Type.Null()])),
  summary: Type.Optional(Type.String({ maxLength: 10_000 })),
  extractedData: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  transcript: Type.Optional(
    Type.Array(Type.Object({ speaker: StringEnum(['BOT', 'HUMAN']), message: Type.String({ maxLength: 10_000 }) }), {
      maxItems: 10_000,
    }),
  ),
  transcriptId: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  recordingId: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});

export function carrierRoutes(reports: CarrierReports): RouteSpec[] {
  return [
    route({
      method: 'post',
      path: '/{provider}/reports',
      operationId: 'receiveCarrierReport',
      summary: "A carrier's call report (webhook; bearer CARRIER_WEBHOOK_SECRET)",
      body: CarrierReportBody,
      errors: [404],
      handler: async (req, res, r) => {
        const source = { provider: paramOf(req, 'provider'), requestId: res.locals.requestId as string };
        if (r.kind !== 'ended') await reports.receive({ callId: r.callId, kind: r.kind, at: r.at }, source);
        else
          await reports.receive(
            {
              callId: r.callId,
              kind: 'ended',
              at: r.at,
              status: r.status ?? 'Completed',
              reason: r.reason ?? 'completed',
              durationSeconds: r.durationSeconds ?? 0,
              disposition: r.disposition ?? null,
              summary: r.summary ?? '',
              extractedData: r.extractedData ?? {},
              transcript: r.transcript ?? [],
              transcriptId: r.transcriptId ?? null,
              recordingId: r.recordingId ?? null,
            },
            source,
          );
        res.json({ success: true });
      },
    }),
  ];
}
