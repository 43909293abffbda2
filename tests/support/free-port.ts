/**
 * A TCP port free on this machine right now, for a test that must know its service's address before
 * the service starts (PUBLIC_URL, which real providers call back and sign): the port is let go before
 * it is answered, so another process could take it in between; for tests on one machine that is rare.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
