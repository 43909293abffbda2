/**
 * The built-in chat platform (alias `builtin`): a chat platform that simulates the network and the
 * customers. It plays a seeded simulated chat (domain/chats/simulation) on a clock scaled by
 * SIMULATION_SPEED (1: real time, 0: at once) and reports each step through `ChatPlatformReports`,
 * exactly as a real platform's webhooks would. Timestamps follow the simulated timeline from the
 * moment the platform took the message.
 */
import type { ChatPlatformReports, ChatReport } from '../../application/chats/chat-platform-reports';
import type { ChatPlatform, ChatSendRequest } from '../../application/ports/chat-platform';
import type { Logger } from '../../application/ports/logger';
import { platformMsgIdOf, simulateChat } from '../../domain/chats/simulation/simulate-chat';

export type BuiltinChatPlatformOptions = {
  reports: ChatPlatformReports;
  /** SIMULATION_SPEED: simulated seconds take `speed` real seconds. */
  speed: number;
  logger?: Logger;
  now?: () => Date;
};

export function builtinChatPlatform(options: BuiltinChatPlatformOptions): ChatPlatform & { resume(request: ChatSendRequest): Promise<void>; idle(): Promise<void>; stop(): Promise<void> } {
  const running = new Set<Promise<void>>();
  // Timers of messages waiting on the simulated clock, so that a stop ends them all at once.
  const sleeping = new Set<{ timer: NodeJS.Timeout; reject: (error: Error) => void }>();
  let stopping = false;
  const stopped = new Error('built-in chat platform stopped');
  const sleep = (simulatedSeconds: number) =>
    new Promise<void>((resolve, reject) => {
      if (stopping) return reject(stopped);
      if (options.speed <= 0 || simulatedSeconds <= 0) return resolve();
      const sleeper = {
        timer: setTimeout(() => {
          sleeping.delete(sleeper);
          resolve();
        }, simulatedSeconds * 1000 * options.speed),
        reject,
      };
      sleeping.add(sleeper);
    });

  /** Plays a message's simulated timeline, skipping the first `elapsed` simulated seconds (a resumed message). */
  async function play(request: ChatSendRequest, elapsed = 0): Promise<void> {
    const chat = simulateChat({
      seed: request.messageId,
      at: request.at,
      organizationType: request.organizationType,
      to: request.to,
      customer: request.customer,
      templateLanguage: request.templateLanguage,
      conversation: request.conversation,
    });
    const start = Date.parse(request.at);
    const at = (seconds: number) => new Date(start + seconds * 1000).toISOString();
    const report = (r: ChatReport) => options.reports.receive(r, { provider: 'builtin', requestId: `builtin-${request.messageId}` });
    const { messageId } = request;
    let clock = elapsed;
    for (const step of chat.steps) {
      if (step.afterSeconds > clock) await sleep(step.afterSeconds - clock);
      clock = Math.max(clock, step.afterSeconds);
      const when = at(step.afterSeconds);
      switch (step.kind) {
        case 'status':
          await report({ messageId, kind: 'status', status: step.status, at: when, platformMsgId: chat.platformMsgId, ...(step.status === 'Failed' && { errors: step.errors }) });
          break;
        case 'message':
          await report({ messageId, kind: 'message', entryId: step.entryId, role: step.role, content: step.content, at: when });
          break;
        case 'closed':
          await report({ messageId, kind: 'closed', at: when, reason: step.reason, disposition: step.disposition, summary: step.summary });
          break;
      }
    }
  }

  // The platform takes a message at once and plays it out in the background, as a network would.
  const inBackground = (request: ChatSendRequest, elapsed?: number) => {
    const played = play(request, elapsed).catch((error) => {
      if (error !== stopped) options.logger?.error('built-in chat platform failed a message', { messageId: request.messageId, error: String(error) });
    });
    running.add(played);
    void played.finally(() => running.delete(played));
  };

  return {
    alias: 'builtin',
    async send(request) {
      // After a stop the message is taken but goes nowhere; it plays on after the restart (`resume`).
      if (!stopping) inBackground(request);
      return { platformMsgId: platformMsgIdOf(request.messageId) };
    },
    /** A message taken before a restart plays on from where its timeline is now (at once to its end when that has passed). */
    async resume(request) {
      const elapsedMs = (options.now?.() ?? new Date()).getTime() - Date.parse(request.at);
      inBackground(request, options.speed > 0 ? Math.max(0, elapsedMs) / 1000 / options.speed : Number.POSITIVE_INFINITY);
    },
    /** Resolves when every message in progress has played out (tests, shutdown). */
    async idle() {
      while (running.size > 0) await Promise.all([...running]);
    },
    /** Stops playing messages (shutdown). Chats cut short play on after the restart (`resume`). */
    async stop() {
      stopping = true;
      for (const { timer, reject } of sleeping) {
        clearTimeout(timer);
        reject(stopped);
      }
      sleeping.clear();
      await this.idle();
    },
  };
}
