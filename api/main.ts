/** Entry point: `npm start`. Starts on the embedded stores unless configured otherwise; `WORKERS=N` starts N processes. */
import { ConfigError, loadConfig } from '../infrastructure/config/config';
import { createService } from './composition';
import { isPrimaryOfMany, superviseWorkers } from './workers';
import { fastestAesGcm } from '../infrastructure/crypto/openssl-aes-gcm';

/** How long closing the service (managers, leases, checkpoints, stores) may take once the connections are gone. */
const CLOSE_TIMEOUT_MS = 15_000;

async function main(): Promise<void> {
  // Read once here, before any worker starts: generated secrets are written once and shared.
  const config = loadConfig();
  if (isPrimaryOfMany(config)) {
    const log = (message: string) =>
      process.stdout.write(JSON.stringify({ level: 'info', time: new Date().toISOString(), message }) + '\n');
    log(`starting ${config.workers} workers`);
    printWelcome(config.port, config.secretsFile);
    process.exit(await superviseWorkers(config, log));
  }
  const service = await createService(config);
  const server = service.server;
  await new Promise<void>((resolve) => server.listen(config.port, resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  service.logger.info('listening', {
    port,
    eventStore: config.eventStore,
    readStore: config.readStore,
    dataDir: config.dataDir,
    // What personal data is sealed with (docs/privacy.md, "The cipher"); none when sealing is off.
    personalDataCipher: config.personalDataEncryption ? fastestAesGcm().name : 'off',
  });
  if (config.workers === 1) printWelcome(port, config.secretsFile);

  let stopping = false;
  /**
   * A stop: /readyz turns unready, open WebSockets are told "going away" (1001), new connections are
   * refused and the requests in flight finish (answers say Connection: close, idle keep-alive sockets
   * are closed). Past SHUTDOWN_TIMEOUT_MS the connections still open are cut (their speech requests end
   * as disconnected). Either way the service is then closed as a whole: managers and jobs stop, leases
   * are given up, checkpoints and read models are flushed, the stores closed. Exit 0 when everything
   * finished, 1 when something had to be cut (or the close itself failed or hung).
   */
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    service.logger.info('shutting down', { signal });
    service.beginShutdown();
    const idle = setInterval(() => server.closeIdleConnections(), 100);
    const drained = new Promise<boolean>((resolve) => server.close(() => resolve(true)));
    server.closeIdleConnections();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>(
      (resolve) => (timer = setTimeout(() => resolve(false), config.shutdownTimeoutMs)),
    );
    const clean = await Promise.race([drained, timedOut]);
    clearTimeout(timer);
    clearInterval(idle);
    if (!clean) {
      service.logger.error('shutdown timed out; cutting the connections still open', {
        afterMs: config.shutdownTimeoutMs,
      });
      server.closeAllConnections();
    }
    // The close has its own bound: a store that hangs must not keep the process from ending.
    setTimeout(() => {
      service.logger.error('forced exit: the service did not close in time', { waitingFor: service.closing() });
      process.exit(1);
    }, CLOSE_TIMEOUT_MS).unref();
    try {
      await service.close();
    } catch (error) {
      service.logger.error('the service did not close cleanly', { error: String(error) });
      process.exit(1);
    }
    service.logger.info('stopped');
    process.exit(clean ? 0 : 1);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

function printWelcome(port: number, secretsFile: string | null): void {
  const base = `http://localhost:${port}`;
  const token = secretsFile ? `$(node -p "require('${secretsFile}').adminToken")` : '$ADMIN_TOKEN';
  const lines = [
    '',
    `Service listening on ${base}`,
    secretsFile
      ? `Admin token (generated): see "adminToken" in ${secretsFile}`
      : 'Admin token: the ADMIN_TOKEN environment variable',
    'Try it: register an organization, then issue it a token:',
    `  curl -s -X POST ${base}/admin/v1/organizations -H "Authorization: Bearer ${token}" -H 'Content-Type: application/json' -d '{"name":"Acme Collections","type":"collection"}'`,
    `  curl -s -X POST ${base}/admin/v1/organizations/<id>/tokens -H "Authorization: Bearer ${token}"`,
    `API description: ${base}/docs`,
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

main().catch((error) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`Configuration error: ${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`Failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
