/**
 * The operator console's first page: how much JavaScript it sends (gzipped, as a browser on a slow link
 * would receive it) and how long a new tab takes from navigation until the sign-in form can be used.
 * Debian's Chromium, headless, driven by playwright-core, against the service in this process with its
 * console built. Each load is a fresh browser context (no cache, no session).
 *
 *   npx tsx bench/console.ts [--loads 30]
 *
 * Targets: at most 300 KB of compressed JavaScript; usable within 1 s (p95).
 */
import { browserMissing, scriptsLoadedBy, startConsole } from '../tests/browser/support';
import { percentile } from './support/stats';

const option = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const LOADS = option('loads', 30);

async function main() {
  const missing = browserMissing();
  if (missing) {
    console.log(`console first page: not measured: ${missing}`);
    return;
  }
  const c = await startConsole();
  try {
    const usable: number[] = [];
    let compressed = 0;
    for (let i = 0; i < LOADS; i++) {
      const context = await c.browser.newContext();
      const page = await context.newPage();
      const scripts = i === 0 ? scriptsLoadedBy(page) : null;
      const started = performance.now();
      await page.goto(`${c.t.url}/console/`);
      await page.getByLabel('Organization token').waitFor();
      usable.push(performance.now() - started);
      await context.close();
      if (scripts) compressed = await scripts.gzippedBytes();
    }
    const first = usable[0]!;
    const rest = usable.slice(1).sort((a, b) => a - b);
    console.log(`console first page: gzipped JavaScript=${(compressed / 1024).toFixed(1)} KB`);
    console.log(
      `console first page: usable first load=${first.toFixed(0)} ms; then over ${rest.length} new tabs p50=${percentile(rest, 50).toFixed(0)} ms p95=${percentile(rest, 95).toFixed(0)} ms max=${rest[rest.length - 1]!.toFixed(0)} ms`,
    );
    if (c.foreignRequests.length > 0) console.log(`requests that left the service: ${c.foreignRequests.join(', ')}`);
  } finally {
    await c.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
