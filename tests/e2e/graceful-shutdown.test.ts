/** SIGTERM: the server stops accepting, finishes the requests in flight, closes its stores, exits 0. */
import { startServerProcess } from '../support/server-process';
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
