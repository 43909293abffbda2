/**
 * The telephony provider port's contract: what any carrier must do with a dialed call, seen only
 * through the reports it sends back (a real `CarrierReports` over a memory event store) and the call
 * stream they move. Each adapter's test passes a harness: how to start the provider reporting to
 * those reports, and a call it will answer and one it will not.
 */
import { CarrierReports, type CarrierReport } from '../../application/calls/carrier-reports';
import { CommandHandler } from '../../application/command-handler';
import type { DialRequest, TelephonyProvider } from '../../application/ports/telephony';
import {
  callDecider,
  callStreamId,
  FINAL_CALL_STATUSES,
  type CallEvent,
  type CallState,
} from '../../domain/calls/call';
import { MemoryEventStore } from '../../infrastructure/memory/memory-event-store';

/** The real inbound path, keeping what it was told so a test can tell it all again. */
export class ObservedReports extends CarrierReports {
  readonly received: { report: CarrierReport; source: { provider: string; requestId: string } }[] = [];
  override async receive(report: CarrierReport, source: { provider: string; requestId: string }): Promise<void> {
    this.received.push({ report, source });
    await super.receive(report, source);
  }
}

export type RunningCarrier = {
  provider: TelephonyProvider;
  /** Resolves once every call dialed so far has sent all its reports. */
  settled(): Promise<void>;
  stop(): Promise<void>;
};

/** A call the carrier is known to take one way: its id and the customer's number. */
export type ScriptedCall = { callId: string; to: string };

export type TelephonyHarness = {
  organizationId: string;
  start(deps: { commands: CommandHandler; reports: ObservedReports }): Promise<RunningCarrier>;
  /** A call the customer answers. */
  answered(): ScriptedCall;
  /** A call nobody answers (busy, no answer). */
  notAnswered(): ScriptedCall;
};

const FROM = '+14155550100';

export function telephonyContract(name: string, harness: () => TelephonyHarness): void {
  describe(`telephony provider contract: ${name}`, () => {
    let h: TelephonyHarness;
    let events: MemoryEventStore;
    let commands: CommandHandler;
    let reports: ObservedReports;
    let carrier: RunningCarrier;

    beforeEach(async () => {
      h = harness();
      events = new MemoryEventStore();
      commands = new CommandHandler(events);
      reports = new ObservedReports(commands);
      carrier = await h.start({ commands, reports });
    });
    afterEach(() => carrier.stop());

    /** Records the call as the dispatcher would (requested, dialed with this provider), then dials it. */
    async function dial(call: ScriptedCall): Promise<void> {
      const at = new Date().toISOString();
      const context = { organizationId: h.organizationId, actor: 'contract', requestId: `r-${call.callId}` };
      const stream = callStreamId(call.callId);
      await commands.handle(
        callDecider,
        stream,
        {
          type: 'RequestCall',
          callId: call.callId,
          at,
          organizationId: h.organizationId,
          campaignId: 'c1',
          campaignName: 'Contract',
          customerKeyField: 'loan_id',
          customerKey: 'L-1',
          customerName: 'Asha Rao',
          to: call.to,
          from: FROM,
          agentId: 'a1',
          dispositionId: 'd1',
          language: 'en',
        },
        context,
      );
      await commands.handle(
        callDecider,
        stream,
        { type: 'DialCall', provider: carrier.provider.alias, at, blacklist: { listed: false, revision: -1 } },
        context,
      );
      const request: DialRequest = {
        callId: call.callId,
        organizationId: h.organizationId,
        organizationType: 'collection',
        from: FROM,
        to: call.to,
        language: 'en',
        at,
        agent: { name: 'Priya', language: 'en', voiceId: 'v1' },
        customer: { loan_id: 'L-1', first_name: 'Asha', last_name: 'Rao', phone_number: call.to },
        dispositions: [{ id: 'd1', name: 'Promise to pay' }],
      };
      await carrier.provider.dial(request);
    }

    async function finalCall(callId: string): Promise<{ state: CallState; events: CallEvent[] }> {
      for (let i = 0; i < 200; i++) {
        await carrier.settled();
        const { state } = await commands.load(callDecider, callStreamId(callId));
        if (state.status !== 'none' && FINAL_CALL_STATUSES.includes(state.status)) {
          const stream = await events.readStream(callStreamId(callId));
          return { state, events: stream.map((e) => ({ type: e.type, data: e.data }) as CallEvent) };
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`Call ${callId} did not reach a final status`);
    }

    const ending = (events: CallEvent[]) =>
      events.find((e): e is Extract<CallEvent, { type: 'CallEnded' }> => e.type === 'CallEnded')!.data;

    it('reports a dialed call until it reaches a final status, ending it once', async () => {
      const call = h.answered();
      await dial(call);
      const { events: stream } = await finalCall(call.callId);
      expect(stream.filter((e) => e.type === 'CallEnded')).toHaveLength(1);
      expect(reports.received.every((r) => r.source.provider === carrier.provider.alias)).toBe(true);
    });

    it('ends an answered call Completed, with its talk time, after it rang and was answered', async () => {
      const call = h.answered();
      await dial(call);
      const { state, events: stream } = await finalCall(call.callId);
      expect(state.status).toBe('Completed');
      const types = stream.map((e) => e.type).filter((t) => t !== 'CallMediaAttached');
      expect(types).toEqual(['CallQueued', 'CallDialed', 'CallRinging', 'CallAnswered', 'CallEnded']);
      expect(ending(stream).durationSeconds).toBeGreaterThan(0);
      expect(Date.parse(ending(stream).at)).not.toBeNaN();
    });

    it('ends a call nobody answered without contact and without talk time', async () => {
      const call = h.notAnswered();
      await dial(call);
      const { state, events: stream } = await finalCall(call.callId);
      expect(state.status).toBe('No Contact');
      expect(stream.map((e) => e.type)).not.toContain('CallAnswered');
      expect(ending(stream).durationSeconds).toBe(0);
      expect(ending(stream).reason).not.toBe('completed');
    });

    it('changes nothing when every report is sent again', async () => {
      const answered = h.answered();
      const missed = h.notAnswered();
      await dial(answered);
      await dial(missed);
      await finalCall(answered.callId);
      await finalCall(missed.callId);
      await carrier.settled();
      const before = await events.readAll();
      for (const { report, source } of [...reports.received]) await reports.receive(report, source);
      expect(await events.readAll()).toEqual(before);
    });

    it('keeps each call apart: two calls at once each end their own way', async () => {
      const answered = h.answered();
      const missed = h.notAnswered();
      await Promise.all([dial(answered), dial(missed)]);
      expect((await finalCall(answered.callId)).state.status).toBe('Completed');
      expect((await finalCall(missed.callId)).state.status).toBe('No Contact');
    });
  });
}
