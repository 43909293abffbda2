/** Runs the service as its own process, as a client sees it, for end-to-end tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

export type ServerProcess = { child: ChildProcess; url: string; output: () => string; exited: Promise<number | null> };

/** The address the service prints once it listens (api/main.ts, `printWelcome`). */
const LISTENING = /Service listening on http:\/\/localhost:(\d+)/;

/**
 * Suites are not at the mercy of the hour they run at, nor paced: those of calling hours and pacing set
 * the law's hours and their campaigns' pace (docs/campaign-schedules.md).
 */
export const ROUND_THE_CLOCK = {
  CALLING_HOURS_COLLECTION: '00:00-24:00',
  CALLING_HOURS_LEAD_GENERATION: '00:00-24:00',
  CAMPAIGN_MAX_CONCURRENT_CALLS: '0',
  CAMPAIGN_CALLS_PER_MINUTE: '0',
};

/**
 * Starts the service and answers once it is ready. A single process listens on a port the system gives it
 * (PORT=0) and says which: its address is the one it printed, so /healthz is asked of this very process. A
 * port picked beforehand could be taken in between by another test's server, whose /healthz would answer
 * for a process still starting (or failing to listen), and the test would then talk to the wrong service.
 * Several processes (WORKERS > 1) share a port chosen here, as their first process prints it before any
 * of them listens.
 */
export async function startServerProcess(env: Record<string, string>, timeoutMs = 30_000): Promise<ServerProcess> {
  const several = Number(env.WORKERS ?? process.env.WORKERS ?? 1) > 1;
  const port = several ? await freePort() : 0;
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'api', 'main.ts')], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ...ROUND_THE_CLOCK, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + timeoutMs;
  let url: string | null = null;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`server exited early (${child.exitCode ?? child.signalCode}):\n${output}`);
    const printed = LISTENING.exec(output);
    if (printed) url = `http://127.0.0.1:${printed[1]}`;
    try {
      if (url && (await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not start in time:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, url: url!, output: () => output, exited };
}

/**
 * Stops the service with SIGTERM, as an operator does, and fails unless it stopped cleanly (exit code 0);
 * what ended it otherwise (another exit code, a signal, a fatal error) is in the failure, with the
 * process's last output.
 */
export async function stopCleanly(server: ServerProcess): Promise<void> {
  server.child.kill('SIGTERM');
  const code = await server.exited;
  if (code !== 0)
    throw new Error(
      `the service did not stop cleanly (exit code ${code}, signal ${server.child.signalCode}):\n${server.output().slice(-4000)}`,
    );
}

/**
 * A GET with the token, asked again after its Retry-After while it answers 503: a read the read models
 * cannot catch up for in time (a restarted process projecting what it had not) says when to come back.
 */
export async function readAfterCatchUp(url: string, token: string, tries = 60): Promise<Response> {
  for (let i = 1; ; i++) {
    const reply = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    if (reply.status !== 503 || i >= tries) return reply;
    await reply.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, Number(reply.headers.get('retry-after') ?? 1) * 1000));
  }
}

export type ProcessReply = { status: number; body: any; text: string; headers: Headers };

/**
 * The service as a process of its own that a test can kill and start again on the same `env` (its data
 * directory), and requests to whichever process runs now, with a token the test sets once it has one.
 */
export async function restartableServer(env: Record<string, string>, firstToken: string) {
  let server: ServerProcess = await startServerProcess(env);
  let token = firstToken;
  const request = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ProcessReply> => {
    const reply = await fetch(server.url + path, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await reply.text();
    return { status: reply.status, body: text ? JSON.parse(text) : undefined, text, headers: reply.headers };
  };
  return {
    request,
    /** A GET asked again, after its Retry-After, while it answers 503 (the read models catching up). */
    read: async (path: string): Promise<ProcessReply> => {
      const reply = await readAfterCatchUp(server.url + path, token);
      const text = await reply.text();
      return { status: reply.status, body: text ? JSON.parse(text) : undefined, text, headers: reply.headers };
    },
    get server() {
      return server;
    },
    useToken: (t: string) => void (token = t),
    async kill() {
      server.child.kill('SIGKILL');
      await server.exited;
    },
    async restart() {
      server = await startServerProcess(env);
    },
    async stop() {
      if (server.child.exitCode === null && server.child.signalCode === null) await stopCleanly(server);
    },
  };
}
