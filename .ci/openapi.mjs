// Lints the API description as tools take it. Builds the service of dist/ (run after `npm run build`) in
// this process, on memory stores and with a stand-in speech engine so that the speech routes are declared
// too, reads the document GET /openapi.json serves, writes it to a temporary file and runs
// `redocly lint` on it with the repository's redocly.yaml. Any error or warning fails: redocly's own exit
// code counts only errors, so its JSON report is read for the warnings.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const { createService } = require('../dist/api/composition.js');
const { loadConfig } = require('../dist/infrastructure/config/config.js');
const { silentLogger } = require('../dist/infrastructure/logging/json-logger.js');

/** Declares the speech routes without starting eSpeak's worker threads: the document needs no audio. */
const standInSpeechEngine = {
  voices: () => [],
  synthesize: () => {
    throw new Error('no speech engine while describing the API');
  },
  warm: async () => undefined,
  close: async () => undefined,
};

async function servedDocument(dataDir) {
  const config = loadConfig({
    DATA_DIR: dataDir,
    EVENT_STORE: 'memory',
    READ_STORE: 'memory',
    SERVICES: 'speech,agent',
    JWT_SECRET: 'openapi-lint-secret-openapi-lint-secret',
    ADMIN_TOKEN: 'openapi-lint-admin-token',
    PORT: '0',
  });
  const service = await createService(config, { logger: silentLogger, speechEngine: standInSpeechEngine });
  try {
    await new Promise((resolve) => service.server.listen(0, '127.0.0.1', resolve));
    const response = await fetch(`http://127.0.0.1:${service.server.address().port}/openapi.json`);
    if (response.status !== 200) throw new Error(`GET /openapi.json answered ${response.status}`);
    return await response.text();
  } finally {
    service.server.closeAllConnections();
    await new Promise((resolve) => service.server.close(resolve));
    await service.close();
  }
}

const isTemplate = (segment) => /^\{[^}]+\}$/.test(segment);

/**
 * Pairs of paths that cross (each has a template where the other has a fixed segment, so neither is the
 * more specific) and share a method: a request of that method could be either operation. redocly's
 * no-ambiguous-paths, which redocly.yaml turns off, reports crossing paths whatever their methods.
 */
function crossingOperations(document) {
  const paths = Object.entries(document.paths).map(([path, item]) => ({ path, methods: Object.keys(item) }));
  const problems = [];
  for (const [i, a] of paths.entries())
    for (const b of paths.slice(i + 1)) {
      const x = a.path.split('/');
      const y = b.path.split('/');
      if (x.length !== y.length) continue;
      const pairs = x.map((segment, k) => [segment, y[k]]);
      const matches = pairs.every(([s, t]) => s === t || isTemplate(s) || isTemplate(t));
      const crosses =
        pairs.some(([s, t]) => isTemplate(s) && !isTemplate(t)) &&
        pairs.some(([s, t]) => !isTemplate(s) && isTemplate(t));
      const shared = a.methods.filter((method) => b.methods.includes(method));
      if (matches && crosses && shared.length > 0) problems.push(`${shared.join(', ')} ${a.path} and ${b.path}`);
    }
  return problems;
}

/** `#/paths/~1api~1v1~1x/get` as a reader finds it: `paths./api/v1/x.get`. */
const readable = (pointer) =>
  pointer
    .replace(/^#\//, '')
    .split('/')
    .map((part) => decodeURIComponent(part).replaceAll('~1', '/').replaceAll('~0', '~'))
    .join('.');

const dir = mkdtempSync(join(tmpdir(), 'openapi-'));
let failed = true;
try {
  const file = join(dir, 'openapi.json');
  const document = JSON.parse(await servedDocument(dir));
  writeFileSync(file, JSON.stringify(document, null, 2));
  const lint = spawnSync(
    'npx',
    ['--no-install', 'redocly', 'lint', file, '--format', 'json', '--max-problems', '1000', '--lint-config', 'error'],
    { encoding: 'utf8', env: { ...process.env, REDOCLY_TELEMETRY: 'off' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  if (!lint.stdout.includes('{')) throw new Error(`redocly gave no report (exit ${lint.status}):\n${lint.stderr}`);
  const { totals, problems } = JSON.parse(lint.stdout.slice(lint.stdout.indexOf('{')));
  for (const problem of problems)
    console.log(
      `${problem.severity} ${problem.ruleId}: ${problem.message}` +
        problem.location.map((at) => `\n    at ${readable(at.pointer)}`).join(''),
    );
  const crossing = crossingOperations(document);
  for (const pair of crossing) console.log(`error crossing-paths: a request could be either ${pair}`);
  const errors = totals.errors + crossing.length;
  failed = lint.status !== 0 || errors > 0 || totals.warnings > 0;
  console.log(
    `openapi lint: ${errors} errors, ${totals.warnings} warnings, ${totals.ignored} ignored` +
      (failed ? ' (any error or warning fails)' : ''),
  );
} catch (error) {
  console.error(`openapi lint failed: ${error instanceof Error ? error.stack : error}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
