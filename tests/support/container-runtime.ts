/**
 * Whether a container runtime (Docker, Podman, ...) is reachable, found the way testcontainers finds one
 * (DOCKER_HOST, ~/.testcontainers.properties, the usual sockets) and pinged. Jest registers tests
 * synchronously, so the probe runs in a short-lived child process under a hard time limit: where no
 * runtime exists the answer comes in about a second, and a runtime that does not answer cannot hang the
 * suites. The answer is kept for the rest of the process.
 */
import { spawnSync } from 'node:child_process';

export type ContainerRuntime = { available: boolean; reason: string };

const PROBE = (testcontainers: string) => `
require(${JSON.stringify(testcontainers)}).getContainerRuntimeClient().then(
  (client) => { process.stdout.write('reachable at ' + client.info.containerRuntime.host); process.exit(0); },
  (error) => { process.stdout.write(String((error && error.message) || error)); process.exit(1); },
);`;

let known: ContainerRuntime | undefined;

/** `CONTAINER_RUNTIME_PROBE_MS` raises the limit for a runtime that is slow to answer. */
export function containerRuntime(timeoutMs = Number(process.env.CONTAINER_RUNTIME_PROBE_MS) || 3000): ContainerRuntime {
  known ??= probe(timeoutMs);
  return known;
}

function probe(timeoutMs: number): ContainerRuntime {
  const result = spawnSync(process.execPath, ['-e', PROBE(require.resolve('testcontainers'))], {
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  const said = (result.stdout ?? '').trim().split('\n').pop() ?? '';
  if (result.status === 0) return { available: true, reason: said || 'reachable' };
  if (result.error && 'code' in result.error && result.error.code === 'ETIMEDOUT')
    return { available: false, reason: `no container runtime answered within ${timeoutMs} ms` };
  return {
    available: false,
    reason: `no container runtime reachable (${said || result.error?.message || `probe exited with ${result.status ?? result.signal}`})`,
  };
}

/** Retries `attempt` until it resolves: a started container often needs a moment before it serves. */
export async function untilReady<T>(what: string, attempt: () => Promise<T>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${what} not ready after ${timeoutMs} ms: ${String(error)}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}
