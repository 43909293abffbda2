/// <reference lib="dom" />
/**
 * The console's frame in a real browser: served at /console by the service, sign-in with a token kept
 * in the tab (never in a URL), pages a token's scopes do not open shown disabled with the reason, the
 * first page within its size budget (at most 300 KB of compressed JavaScript), nothing loaded from
 * elsewhere. How fast it becomes usable (target 1 s) is measured by bench/console.ts, not asserted here:
 * a timed assertion fails on a busy machine without anything being wrong.
 */
import { describeInBrowser, screenshots, scriptsLoadedBy, startConsole, type Console } from './support';

jest.setTimeout(120_000);

describeInBrowser('operator console: frame, sign-in and scopes', () => {
  let c: Console;
  beforeAll(async () => {
    c = await startConsole();
  });
  afterAll(() => c?.close());

  it('serves the console with a policy that allows its own origin only, and its pages by path', async () => {
    const index = await fetch(`${c.t.url}/console/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const html = await index.text();
    const deep = await fetch(`${c.t.url}/console/logs/anything`);
    expect([deep.status, await deep.text()]).toEqual([200, html]);
    const asset = html.match(/\/console\/assets\/[^"]+\.js/)![0];
    const script = await fetch(c.t.url + asset);
    expect(script.headers.get('cache-control')).toContain('immutable');
    const missing = await fetch(`${c.t.url}/console/assets/nothing.js`);
    expect(missing.status).toBe(404);
  });

  it('signs in with a token kept in the tab, shows the pages, and signs out', async () => {
    const page = await c.open();
    await page.getByRole('heading', { level: 1, name: 'Campaigns' }).waitFor();
    expect(page.url()).not.toContain(c.org.token);
    expect(await page.evaluate(() => Object.values(sessionStorage))).toContain(c.org.token);
    expect(await page.evaluate(() => Object.values(localStorage))).not.toContain(c.org.token);
    const nav = page.getByRole('navigation', { name: 'Console' });
    for (const title of ['Campaigns', 'Logs', 'Analytics', 'Speech', 'Audit trail', 'Webhooks'])
      await nav.getByRole('link', { name: title }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Organization token').waitFor();
    expect(await page.evaluate(() => Object.values(sessionStorage))).not.toContain(c.org.token);
  });

  it('refuses text that is not a token, in place', async () => {
    const context = await c.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${c.t.url}/console/`);
    await page.getByLabel('Organization token').fill('not a token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('That is not an organization token').waitFor();
    await screenshots(page, 'sign-in');
    await context.close();
  });

  it('shows a page the token has no scope for as disabled, with the reason', async () => {
    const token = await c.t.tokenFor(c.org.id, { scopes: ['logs:read'] });
    const page = await c.open('/analytics', { token });
    await page.getByRole('heading', { level: 1, name: 'Analytics' }).waitFor();
    await page.getByRole('note').getByText('your token does not have the scope “analytics:read”').waitFor();
    const link = page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Analytics' });
    expect(await link.getAttribute('class')).toBe('disabled');
    await page.goto(`${c.t.url}/console/logs`);
    await page.getByRole('heading', { level: 1, name: 'Logs' }).waitFor();
    expect(await page.getByRole('note').count()).toBe(0);
  });

  it('can be used with the keyboard: the first Tab reaches the skip link, which moves to the page', async () => {
    const page = await c.open('/campaigns');
    await page.getByRole('heading', { level: 1, name: 'Campaigns' }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
  });

  it('loads the first page within budget: at most 300 KB of compressed JavaScript, nothing from elsewhere', async () => {
    const context = await c.browser.newContext();
    const page = await context.newPage();
    const scripts = scriptsLoadedBy(page);
    await page.goto(`${c.t.url}/console/`);
    await page.getByLabel('Organization token').waitFor();
    expect(scripts.urls.length).toBeGreaterThan(0);
    expect(await scripts.gzippedBytes()).toBeLessThanOrEqual(300 * 1024);
    await context.close();
    expect(c.foreignRequests).toEqual([]);
  });
});
