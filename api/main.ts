/** Entry point: `npm start`. Starts on the embedded stores unless configured otherwise; `WORKERS=N` starts N processes. */
import { ConfigError, loadConfig } from '../infrastructure/config/config';
import { createService } from './composition';
import { isPrimaryOfMany, superviseWorkers } from './workers';

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
  });
  if (config.workers === 1) printWelcome(port, config.secretsFile);

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    service.logger.info('shutting down', { signal });
    service.beginShutdown();
    // Stop accepting; in-flight requests finish; keep-alive sockets are closed as soon as they are idle
    // (answers during shutdown also say Connection: close), so close() can end.
    const idle = setInterval(() => server.closeIdleConnections(), 100);
    server.close(async () => {
      clearInterval(idle);
      await service.close();
      service.logger.info('stopped');
      process.exit(0);
    });
    server.closeIdleConnections();
    setTimeout(() => {
      service.logger.error('forced exit after 30 s of draining');
      process.exit(1);
    }, 30_000).unref();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
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
