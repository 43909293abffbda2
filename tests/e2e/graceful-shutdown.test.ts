/**
 * SIGTERM: the server stops accepting, finishes the requests in flight, tells open WebSockets it is going
 * away, closes its stores, exits 0; past SHUTDOWN_TIMEOUT_MS it cuts what is left, still closes, exits 1.
 */
import { connect } from 'node:net';
import { startServerProcess } from '../support/server-process';
import { SpeechClient } from '../support/speech';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(120_000);

describe('graceful shutdown', () => {
  it('finishes a speech stream in flight after SIGTERM and refuses new connections', async () => {
    const dir = tempDir();
    const server = await startServerProcess({
      DATA_DIR: dir.path,
      JWT_SECRET: 'shutdown-secret-shutdown-secret-x',
      ADMIN_TOKEN: 'sd-admin',
    });
    try {
      const post = (path: string, token: string, body: unknown) =>
        fetch(server.url + path, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      for (let i = 0; i < 100 && (await fetch(`${server.url}/readyz`)).status !== 200; i++)
        await new Promise((r) => setTimeout(r, 100));
      const org = (
        (await (await post('/admin/v1/organizations', 'sd-admin', { name: 'S', type: 'collection' })).json()) as any
      ).data;
      const token = ((await (await post(`/admin/v1/organizations/${org.id}/tokens`, 'sd-admin', {})).json()) as any)
        .data.token;
      const text =
        'This is a long reminder that keeps on speaking for a while, so that it is still streaming when the server is told to stop. '.repeat(
          4,
        );
      const reply = await post('/api/v1/get_speech', token, { text, voice_id: 'Ogbs15oBevLzXsUuTtA1', speed: 0.5 });
      expect(reply.status).toBe(200);
      const reader = reply.body!.getReader();
      let bytes = (await reader.read()).value!.length;
      server.child.kill('SIGTERM');
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        bytes += value.length;
      }
      // Whole answer: header plus at least several seconds of 24 kHz audio.
      expect(bytes).toBeGreaterThan(44 + 24000 * 2 * 5);
      const code = await server.exited;
      if (code !== 0) console.log(server.output());
      expect(code).toBe(0);
      await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    } finally {
      server.child.kill('SIGKILL');
      dir.remove();
    }
  });
});

/** A WebSocket is an upgraded connection `server.close()` alone would wait for: it is told "going away" first. */
describe('graceful shutdown with open connections', () => {
  const admin = 'sd-admin';
  const env = (dir: string, extra: Record<string, string> = {}) => ({
    DATA_DIR: dir,
    JWT_SECRET: 'shutdown-secret-shutdown-secret-x',
    ADMIN_TOKEN: admin,
    ...extra,
  });
  const call = (url: string, method: string, path: string, token: string, body?: unknown) =>
    fetch(url + path, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
  const ready = async (url: string) => {
    for (let i = 0; i < 300 && (await fetch(`${url}/readyz`)).status !== 200; i++)
      await new Promise((r) => setTimeout(r, 100));
  };
  const organization = async (url: string) => {
    const org = (
      (await (
        await call(url, 'POST', '/admin/v1/organizations', admin, { name: 'S', type: 'collection' })
      ).json()) as any
    ).data;
    const token = (
      (await (await call(url, 'POST', `/admin/v1/organizations/${org.id}/tokens`, admin, {})).json()) as any
    ).data.token;
    return { id: org.id as string, token: token as string, credits: org.credits as number };
  };

  it('closes open WebSockets with 1001, charges their speech, stops its managers and exits 0 promptly', async () => {
    const dir = tempDir();
    const server = await startServerProcess(env(dir.path));
    let restarted: Awaited<ReturnType<typeof startServerProcess>> | null = null;
    try {
      await ready(server.url);
      const org = await organization(server.url);
      const client = await SpeechClient.connect(server.url, { token: org.token });
      const closed = new Promise<{ code: number; reason: string }>((resolve) =>
        client.ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
      );
      const text = 'A long reminder that goes on speaking, so that it is still streaming at the stop. '.repeat(20);
      client.send({ type: 'speech', request_id: 'long', text, voice_id: 'Ogbs15oBevLzXsUuTtA1', speed: 0.5 });
      // A few seconds of audio: its first segments are complete, so the request has spoken something.
      await client.next((m) => m.type === 'audio_chunk' && m.chunk_index >= 40);
      const signalled = Date.now();
      server.child.kill('SIGTERM');
      const close = await closed;
      expect(close).toEqual({ code: 1001, reason: 'server shutting down' });
      const code = await server.exited;
      if (code !== 0) console.log(server.output());
      expect(code).toBe(0);
      // Before, the upgraded socket kept server.close() waiting until the forced exit at 30 s.
      expect(Date.now() - signalled).toBeLessThan(10_000);
      expect(client.messages.some((m) => m.type === 'complete' && m.request_id === 'long')).toBe(false);

      // The cut request was recorded as ended and charged what it had produced.
      restarted = await startServerProcess(env(dir.path));
      await ready(restarted.url);
      const after = (
        (await (await call(restarted.url, 'GET', `/admin/v1/organizations/${org.id}`, admin)).json()) as any
      ).data;
      expect(after.credits).toBeLessThan(org.credits);
      expect(after.credits).toBeGreaterThan(org.credits - text.length);
    } finally {
      server.child.kill('SIGKILL');
      restarted?.child.kill('SIGKILL');
      dir.remove();
    }
  });

  it('on the forced path (a request that never ends) still stops everything before exiting', async () => {
    const dir = tempDir();
    const server = await startServerProcess(env(dir.path, { SHUTDOWN_TIMEOUT_MS: '1500', LOG_LEVEL: 'info' }));
    try {
      await ready(server.url);
      const org = await organization(server.url);
      // An upload that stalls half-way: the request stays in flight, and server.close() waits for it.
      const { hostname, port } = new URL(server.url);
      const socket = connect(Number(port), hostname);
      await new Promise((r) => socket.once('connect', r));
      socket.on('error', () => undefined);
      socket.write(
        `POST /api/v1/blacklist/bulk/add HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${org.token}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n[{"number":',
      );
      await new Promise((r) => setTimeout(r, 300));
      const signalled = Date.now();
      server.child.kill('SIGTERM');
      const code = await server.exited;
      socket.destroy();
      expect(code).toBe(1);
      expect(Date.now() - signalled).toBeLessThan(10_000);
      const lines = server
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { message: string });
      const messages = lines.map((l) => l.message);
      // Forced, but the managers were stopped and the stores closed (close() ran to its end) first.
      expect(messages).toContain('shutdown timed out; cutting the connections still open');
      expect(messages.indexOf('stopped')).toBeGreaterThan(messages.indexOf('shutting down'));
    } finally {
      server.child.kill('SIGKILL');
      dir.remove();
    }
  });
});
