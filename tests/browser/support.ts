/**
 * What the browser suites share: Debian's Chromium driven by playwright-core against the service with
 * its built console, a signed-in page, and screenshots at laptop and phone width for docs/console/.
 * Without a browser the suites skip, saying why (`.ci/browser` installs one where it can).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ROOT } from '../support/server-process';
import { startTestService, type TestService } from '../support/test-service';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--autoplay-policy=no-user-gesture-required',
];
export const LAPTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };
const SCREENSHOTS = join(ROOT, 'docs', 'console');
const BUILT = join(ROOT, 'dist', 'console', 'index.html');

/** Why the browser suites cannot run here, or null when they can. */
export function browserMissing(): string | null {
  // The console does not depend on the service's Node version: .ci/run drives the browser on its first pass only.
  if (process.env.CHECK_RUNTIME_ONLY) return 'the browser suites run on the first Node of the check only';
  return existsSync(CHROMIUM) ? null : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`;
}

/** `describe`, or `describe.skip` with the reason printed, when there is no browser. */
export function describeInBrowser(name: string, body: () => void): void {
  const missing = browserMissing();
  if (missing) {
    console.log(`browser suite "${name}" skipped: ${missing}`);
    describe.skip(name, body);
  } else describe(name, body);
}

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Builds the console when dist/console is missing or older than its sources (`npm run build:console` does it in CI). */
export function ensureConsoleBuilt(): void {
  const sources = Math.max(
    newestSource(join(ROOT, 'console', 'src')),
    statSync(join(ROOT, 'console', 'index.html')).mtimeMs,
  );
  if (existsSync(BUILT) && statSync(BUILT).mtimeMs >= sources) return;
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', 'console/vite.config.mts'],
    {
      cwd: ROOT,
      stdio: 'inherit',
    },
  );
}

export type Console = {
  t: TestService;
  browser: Browser;
  org: { id: string; token: string };
  /** A new tab signed in with `token` (the organization's unless given), at `path` below /console. */
  open: (path?: string, options?: { token?: string; viewport?: { width: number; height: number } }) => Promise<Page>;
  /** Requests made by the pages that left the service's origin (none may). */
  foreignRequests: string[];
  close: () => Promise<void>;
};

/** The service (in this process, its console built), a browser, and an organization to sign in with. */
export async function startConsole(env: Record<string, string> = {}): Promise<Console> {
  ensureConsoleBuilt();
  const t = await startTestService({ env });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
  const org = await t.newOrganization('collection');
  const contexts: BrowserContext[] = [];
  const foreignRequests: string[] = [];
  const open: Console['open'] = async (path = '/', options = {}) => {
    const context = await browser.newContext({ viewport: options.viewport ?? LAPTOP });
    contexts.push(context);
    context.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(t.url) && !url.startsWith('data:') && !url.startsWith('blob:')) foreignRequests.push(url);
    });
    const page = await context.newPage();
    await page.goto(`${t.url}/console/`);
    await page.getByLabel('Organization token').fill(options.token ?? org.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    if (path !== '/') await page.goto(`${t.url}/console${path}`);
    return page;
  };
  return {
    t,
    browser,
    org,
    open,
    foreignRequests,
    close: async () => {
      for (const context of contexts) await context.close();
      await browser.close();
      await t.stop();
    },
  };
}

/** Screenshots of `page` as it is now, at laptop and then phone width, into docs/console/{name}-{width}.png. */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const before = page.viewportSize() ?? LAPTOP;
  for (const [label, size] of [
    ['laptop', LAPTOP],
    ['phone', PHONE],
  ] as const) {
    await page.setViewportSize(size);
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-${label}.png`), fullPage: true });
  }
  await page.setViewportSize(before);
}

/**
 * The scripts `page` loads from now on, and what they weigh gzipped (fetched again and compressed here,
 * as a browser on a slow link would receive them), for the console's size budget.
 */
export function scriptsLoadedBy(page: Page): { urls: string[]; gzippedBytes: () => Promise<number> } {
  const urls: string[] = [];
  page.on('response', (response) => {
    if (response.request().resourceType() === 'script') urls.push(response.url());
  });
  const gzippedBytes = async () => {
    let bytes = 0;
    for (const url of urls) bytes += gzipSync(Buffer.from(await (await fetch(url)).arrayBuffer())).length;
    return bytes;
  };
  return { urls, gzippedBytes };
}
