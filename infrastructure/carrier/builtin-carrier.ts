/**
 * The built-in carrier (alias `builtin`): a telephony provider that simulates the network. It plays a
 * seeded simulated call (domain/calls/simulation) on a clock scaled by SIMULATION_SPEED (1: real time,
 * 0: at once) and reports each step through `CarrierReports`, exactly as a real carrier's webhooks
 * would. Timestamps follow the simulated timeline from the moment the call was dialed.
 *
 * It simulates inbound traffic too (`receiveInbound`): a caller calls one of its numbers, the call is
 * offered to the service (`InboundCalls`, as a real carrier's inbound webhook would), and when the
 * service answers it the carrier plays it here like a dialed call, picked up by the agent.
 */
import type { CarrierReports } from '../../application/calls/carrier-reports';
import type { InboundCallAnswer, InboundCalls } from '../../application/calls/inbound-calls';
import type { Logger } from '../../application/ports/logger';
import type { DialRequest, TelephonyProvider } from '../../application/ports/telephony';
import type { CallEnding } from '../../domain/calls/call';
import { isLanguageCode, type LanguageCode } from '../../domain/shared/languages';
import { simulateCall } from '../../domain/calls/simulation/simulate-call';
import type { SimulatedCall } from '../../domain/calls/simulation/types';
import { timelines, type Until } from '../shared/timelines';

/** Renders and stores a conversation's audio; answers the recording id, or null when there is none. */
export type RecordConversation = (call: {
  callId: string;
  language: LanguageCode;
  agentVoiceId: string;
  turns: { speaker: 'BOT' | 'HUMAN'; message: string }[];
}) => Promise<string | null>;

export type BuiltinCarrierOptions = {
  reports: CarrierReports;
  /** SIMULATION_SPEED: simulated seconds take `speed` real seconds. */
  speed: number;
  newId: () => string;
  record?: RecordConversation;
  logger?: Logger;
  now?: () => Date;
  /** Where the calls that come in to its numbers are offered (no inbound traffic without it). */
  inbound?: InboundCalls;
};

const DIAL_SECONDS = 1;

export type BuiltinCarrier = TelephonyProvider & {
  /** A simulated caller `from` calls `number`: offered to the service, and played when it answers. */
  receiveInbound(call: { number: string; from: string }): Promise<InboundCallAnswer>;
  idle(): Promise<void>;
  stop(): Promise<void>;
};

export function builtinCarrier(options: BuiltinCarrierOptions): BuiltinCarrier {
  const calls = timelines({ speed: options.speed, now: options.now, logger: options.logger, what: 'carrier' });

  /** Plays a call's simulated timeline, reporting each step when the timeline reaches it. */
  async function play(request: DialRequest, until: Until): Promise<void> {
    const language = isLanguageCode(request.language) ? request.language : 'en';
    const call = simulateCall({
      seed: request.callId,
      at: request.at,
      organizationType: request.organizationType,
      customer: request.customer,
      agent: {
        name: request.agent.name,
        ...(request.agent.language && isLanguageCode(request.agent.language) && { language: request.agent.language }),
        greeting: request.agent.greeting,
        lines: request.agent.lines,
      },
      dispositions: request.dispositions,
      defaultLanguage: language,
      inbound: request.direction === 'inbound',
    });
    const start = Date.parse(request.at);
    const at = (seconds: number) => new Date(start + seconds * 1000).toISOString();
    const report = (r: Parameters<CarrierReports['receive']>[0]) =>
      calls.persistently(() =>
        options.reports.receive(r, { provider: 'builtin', requestId: `builtin-${request.callId}` }),
      );

    const pickedUp = DIAL_SECONDS + call.ringSeconds;
    const endsAt = pickedUp + call.durationSeconds;
    // An inbound call rings from the moment it came in (recorded so): no ringing to report.
    if (call.outcome !== 'failed' && request.direction !== 'inbound') {
      await until(DIAL_SECONDS);
      await report({ callId: request.callId, kind: 'ringing', at: at(DIAL_SECONDS) });
    }
    if (call.outcome === 'answered') {
      await until(pickedUp);
      await report({ callId: request.callId, kind: 'answered', at: at(pickedUp) });
    }
    await until(endsAt);
    await report({ callId: request.callId, kind: 'ended', at: at(endsAt), ...(await ending(request, call)) });
  }

  async function ending(request: DialRequest, call: SimulatedCall): Promise<CallEnding> {
    const transcript = call.turns.map(({ speaker, message }) => ({ speaker, message }));
    const recordingId =
      transcript.length > 0 && options.record
        ? await options
            .record({
              callId: request.callId,
              language: call.language,
              agentVoiceId: request.agent.voiceId,
              turns: transcript,
            })
            .catch(() => null)
        : null;
    return {
      status: endStatusOf(call.outcome),
      reason: call.endReason,
      durationSeconds: call.durationSeconds,
      disposition: call.disposition,
      summary: call.summary,
      extractedData: call.extractedData as Record<string, unknown>,
      transcript,
      transcriptId: transcript.length > 0 ? options.newId() : null,
      recordingId,
    };
  }

  return {
    alias: 'builtin',
    // The carrier takes the call at once and plays it out in the background, as a network would.
    async dial(request) {
      calls.start(request.callId, (until) => play(request, until));
    },
    /** A call dialed before a restart plays on from where its timeline is now (at once when it is past its end). */
    async resume(request) {
      calls.start(request.callId, (until) => play(request, until), calls.elapsedSince(request.at));
    },
    async receiveInbound({ number, from }) {
      if (!options.inbound) return { outcome: 'refused', reason: 'number_not_owned' };
      const callId = options.newId();
      const answer = await options.inbound.offer({
        provider: 'builtin',
        callId,
        to: number,
        from,
        at: (options.now?.() ?? new Date()).toISOString(),
        requestId: `builtin-inbound-${callId}`,
      });
      if (answer.outcome === 'answered') calls.start(callId, (until) => play(answer.request, until));
      return answer;
    },
    /** Resolves when every call in progress has ended (tests, shutdown). */
    idle: () => calls.idle(),
    /** Stops playing calls (shutdown). Calls cut short play on after the restart (`resume`). */
    stop: () => calls.stop(),
  };
}

/** The status a simulated call ends with: answered calls complete, failed ones fail, the rest made no contact. */
function endStatusOf(outcome: SimulatedCall['outcome']): CallEnding['status'] {
  if (outcome === 'answered') return 'Completed';
  return outcome === 'failed' ? 'Failed' : 'No Contact';
}
