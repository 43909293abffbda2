/**
 * What Twilio's status callbacks say of a call, as the carrier reports the service records: ringing,
 * answered (`in-progress`), and the call's end. Twilio calls only a call that was answered
 * `completed`; its `CallDuration` is the talk time. Twilio hears no words: the customer's side is only
 * recorded, so an end carries no transcript, summary or disposition (the agent's own lines come with
 * the media stream, as a `media` report).
 */
import type { CarrierReport } from '../../application/calls/carrier-reports';
import type { CallEnding } from '../../domain/calls/call';

/** A callback's form parameters by name (the first value of each). */
export type CallbackParams = { get(name: string): string | null };

/**
 * The report of a status callback for `callId`, or null for a status that moves nothing (queued,
 * initiated). `answered`: whether the call was answered before (its end is Completed only then).
 */
export function reportOfCallStatus(
  callId: string,
  params: CallbackParams,
  context: { answered: boolean; now: () => Date },
): CarrierReport | null {
  const at = timestampOf(params.get('Timestamp'), context.now);
  const status = params.get('CallStatus');
  switch (status) {
    case 'ringing':
      return { callId, kind: 'ringing', at };
    case 'in-progress':
      return { callId, kind: 'answered', at };
    case 'completed': {
      const duration = Number(params.get('CallDuration') ?? 0);
      const seconds = Number.isFinite(duration) && duration > 0 ? Math.round(duration) : 0;
      return context.answered || seconds > 0
        ? { callId, kind: 'ended', at, ...ending('Completed', 'completed', seconds) }
        : { callId, kind: 'ended', at, ...ending('No Contact', 'no_answer', 0) };
    }
    case 'busy':
      return { callId, kind: 'ended', at, ...ending('No Contact', 'busy', 0) };
    case 'no-answer':
      return { callId, kind: 'ended', at, ...ending('No Contact', 'no_answer', 0) };
    case 'canceled':
      return { callId, kind: 'ended', at, ...ending('No Contact', 'canceled', 0) };
    case 'failed':
      return { callId, kind: 'ended', at, ...ending('Failed', 'carrier_error', 0) };
    default:
      return null;
  }
}

function ending(status: CallEnding['status'], reason: string, durationSeconds: number): CallEnding {
  return {
    status,
    reason,
    durationSeconds,
    disposition: null,
    summary: '',
    extractedData: {},
    transcript: [],
    transcriptId: null,
    recordingId: null,
  };
}

/** The callback's `Timestamp` (RFC 2822, `Tue, 10 Mar 2026 10:00:05 +0000`) as ISO 8601, or now without one. */
export function timestampOf(value: string | null, now: () => Date): string {
  const parsed = value ? Date.parse(value) : NaN;
  return (Number.isFinite(parsed) ? new Date(parsed) : now()).toISOString();
}
