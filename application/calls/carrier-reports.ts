/**
 * The inbound path of carrier reports: ringing, answered, ended. The built-in carrier calls it in
 * process; a real carrier's webhook endpoint calls the same function after checking its signature.
 * Reports may repeat or arrive late; the call aggregate keeps only those that move a call forward.
 */
import { callDecider, callStreamId, type CallEnding } from '../../domain/calls/call';
import type { CommandHandler } from '../command-handler';

export type CarrierReport =
  | { callId: string; kind: 'ringing'; at: string }
  | { callId: string; kind: 'answered'; at: string }
  | ({ callId: string; kind: 'ended'; at: string } & CallEnding);

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
    }
  }
}
