/**
 * The built-in chat platform (alias `builtin`): a chat platform that simulates the network and the
 * customers. It plays a seeded simulated chat (domain/chats/simulation) on a clock scaled by
 * SIMULATION_SPEED (1: real time, 0: at once) and reports each step through `ChatPlatformReports`,
 * exactly as a real platform's webhooks would. Timestamps follow the simulated timeline from the
 * moment the platform took the message.
 */
import { setMaxListeners } from 'node:events';
import type { ChatPlatformReports, ChatReport } from '../../application/chats/chat-platform-reports';
import type { ChatPlatform, ChatSendRequest } from '../../application/ports/chat-platform';
import type { Logger } from '../../application/ports/logger';
import { platformMsgIdOf, simulateChat } from '../../domain/chats/simulation/simulate-chat';

export type BuiltinChatPlatformOptions = {
  reports: ChatPlatformReports;
  /** SIMULATION_SPEED: simulated seconds take `speed` real seconds. */
  speed: number;
  logger?: Logger;
};

export function builtinChatPlatform(options: BuiltinChatPlatformOptions): ChatPlatform & { idle(): Promise<void>; stop(): Promise<void> } {
  const running = new Set<Promise<void>>();
  const stopping = new AbortController();
  // Every message waiting on the simulated clock listens for the stop: thousands at once is expected.
  setMaxListeners(0, stopping.signal);
  const stopped = new Error('built-in chat platform stopped');
  const sleep = (simulatedSeconds: number) =>
    new Promise<void>((resolve, reject) => {
      if (stopping.signal.aborted) return reject(stopped);
      if (options.speed <= 0 || simulatedSeconds <= 0) return resolve();
      const timer = setTimeout(() => {
        stopping.signal.removeEventListener('abort', onStop);
        resolve();
      }, simulatedSeconds * 1000 * options.speed);
      const onStop = () => {
        clearTimeout(timer);
        reject(stopped);
      };
      stopping.signal.addEventListener('abort', onStop, { once: true });
    });

  async function play(request: ChatSendRequest): Promise<void> {
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
    let elapsed = 0;
    for (const step of chat.steps) {
      await sleep(step.afterSeconds - elapsed);
      elapsed = step.afterSeconds;
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

  return {
    alias: 'builtin',
    async send(request) {
      const platformMsgId = platformMsgIdOf(request.messageId);
      // After a stop the message is taken but goes nowhere, like the chats the stop cut short.
      if (stopping.signal.aborted) return { platformMsgId };
      // The platform takes the message at once and plays it out in the background, as a network would.
      const played = play(request).catch((error) => {
        if (error !== stopped) options.logger?.error('built-in chat platform failed a message', { messageId: request.messageId, error: String(error) });
      });
      running.add(played);
      void played.finally(() => running.delete(played));
      return { platformMsgId };
    },
    /** Resolves when every message in progress has played out (tests, shutdown). */
    async idle() {
      while (running.size > 0) await Promise.all([...running]);
    },
    /**
     * Stops playing messages (shutdown). Chats cut short stay where they were: the simulated platform
     * went away with the process; they are not resumed after a restart.
     */
    async stop() {
      stopping.abort();
      await this.idle();
    },
  };
}
