/**
 * Work a restart cut short (the built-in providers' calls and chats), taken up again in the background
 * once the read models include everything the store holds, so the resume sees every open call or chat.
 * `stop` ends the wait (a shutdown before the read models caught up) and waits for the resume.
 */
import type { Logger } from './ports/logger';
import type { ProjectionRunner } from './projection-runner';

export function resumeAfterRestart(deps: {
  runner: ProjectionRunner;
  logger: Logger;
  what: string;
  resume: () => Promise<number>;
}) {
  const stopping = new AbortController();
  let resuming: Promise<void> = Promise.resolve();
  return {
    start(): void {
      resuming = (async () => {
        if (!(await deps.runner.caughtUpWithStore(stopping.signal))) return;
        const resumed = await deps.resume();
        if (resumed > 0) deps.logger.info(`${deps.what} in progress before the restart resumed`, { count: resumed });
      })().catch((error) =>
        deps.logger.error(`${deps.what} in progress before the restart could not be resumed`, { error: String(error) }),
      );
    },
    async stop(): Promise<void> {
      stopping.abort();
      await resuming;
    },
  };
}
