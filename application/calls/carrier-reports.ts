/**
 * The inbound path of carrier reports: ringing, answered, ended, and the call's media (`media`: the
 * agent's lines as spoken so far, all of them each time, and/or a recording the carrier made, which
 * may come after the end). The built-in carrier calls it in
 * process; a real carrier's webhook endpoint calls the same function after checking its signature.
 * Reports may repeat or arrive late; the call aggregate keeps only those that move a call forward.
 */
import { callDecider, callStreamId, type CallEnding, type TranscriptTurn } from '../../domain/calls/call';
import type { CommandHandler } from '../command-handler';

export type CarrierReport =
  | { callId: string; kind: 'ringing'; at: string }
  | { callId: string; kind: 'answered'; at: string }
  | ({ callId: string; kind: 'ended'; at: string } & CallEnding)
  | { callId: string; kind: 'media'; at: string; transcript?: TranscriptTurn[]; recordingId?: string };

export class CarrierReports {
  constructor(private readonly commands: CommandHandler) {}

  async receive(report: CarrierReport, source: { provider: string; requestId: string }): Promise<void> {
    const stream = callStreamId(report.callId);
    const { state } = await this.commands.load(callDecider, stream);
    const context = {
      organizationId: state.status === 'none' ? null : state.organizationId,
      actor: `carrier:${source.provider}`,
      requestId: source.requestId,
    };
    switch (report.kind) {
      case 'ringing':
        await this.commands.handle(callDecider, stream, { type: 'RecordCallRinging', at: report.at }, context);
        return;
      case 'answered':
        await this.commands.handle(callDecider, stream, { type: 'RecordCallAnswered', at: report.at }, context);
        return;
      case 'ended': {
        const { callId: _id, kind: _kind, ...ending } = report;
        await this.commands.handle(callDecider, stream, { type: 'RecordCallEnded', ...ending }, context);
        return;
      }
      case 'media': {
        const { callId: _id, kind: _kind, ...media } = report;
        await this.commands.handle(callDecider, stream, { type: 'AttachCallMedia', ...media }, context);
        return;
      }
    }
  }
}
