/// <reference lib="dom" />
/**
 * The analytics, audit trail and speech pages in a real browser, on calls made through the API: the
 * charts drawn (canvas painted, figures in tables too) and the live counter moving when an event is
 * appended, read from the feed with the token in a header; a stream's history and its state at an
 * instant; speech streamed over the WebSocket authenticated by subprotocol, played as it comes, with the
 * time to first audio, the words highlighted as they are heard, and the audio received saved and decoded
 * here. No token in any URL, nothing loaded from elsewhere.
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { parseWav } from '../../infrastructure/speech';
import { rms } from '../support/speech';
import { callLogs, loan, newCampaign, prepareOrganization, type Ready } from '../integration/workflows/setup';
import { describeInBrowser, screenshots, startConsole, type Console } from './support';

jest.setTimeout(180_000);

const FINAL = ['Completed', 'No Contact', 'Failed'];

/** How many pixels of the canvases in `selector` are painted (not transparent). */
const paintedPixels = (page: Page, selector: string) =>
  page.evaluate((sel) => {
    let painted = 0;
    for (const canvas of Array.from(document.querySelectorAll<HTMLCanvasElement>(sel))) {
      const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
      for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) painted++;
    }
    return painted;
  }, selector);

/** Polls (bounded) until `check` answers true. */
async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`not in time: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describeInBrowser('operator console: analytics, audit trail and speech playground', () => {
  let c: Console;
  let ready: Ready;
  let campaignId: string;
  const urls: string[] = [];
  const watch = (page: Page) => {
    page.on('request', (request) => urls.push(request.url()));
    page.on('websocket', (ws) => urls.push(ws.url()));
    return page;
  };

  beforeAll(async () => {
    c = await startConsole({ SERVICES: 'agent,speech' });
    const call: Ready['call'] = (method, path, body) =>
      c.t.request(method, `/api/v1${path}`, { token: c.org.token, body });
    ready = await prepareOrganization(c.org, call);
    campaignId = await newCampaign(ready);
    const added = await call('POST', '/customers/add/bulk', {
      campaignId,
      records: [loan('A1'), loan('A2'), loan('A3')],
      initiateCall: true,
      callConfig: { agentId: ready.agentId, dispositionId: ready.groupId },
    });
    expect(added.status).toBe(201);
    await eventually(async () => {
      const entries = await callLogs(call, campaignId);
      return entries.length === 3 && entries.every((e) => FINAL.includes(e.status));
    }, 'the three calls ended');
    const credits = await c.t.request('POST', `/admin/v1/organizations/${c.org.id}/credits`, {
      token: c.t.adminToken,
      body: { amount: 100_000 },
    });
    expect(credits.status).toBe(200);
  });
  afterAll(() => c?.close());

  it('draws the charts of the calls made, with their figures as tables, and counts live events', async () => {
    const page = watch(await c.open('/analytics'));
    await page.getByRole('heading', { level: 2, name: 'Daily volumes and talk time' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Agents' }).waitFor();
    const daily = page.getByRole('figure', { name: 'Daily volumes and talk time' });
    await daily.getByText('3 calls').waitFor();
    await eventually(async () => (await paintedPixels(page, '.chart canvas')) > 1000, 'the charts painted');
    // The figures as a table, for whoever cannot see the canvas.
    await daily.getByText('The figures as a table').click();
    const today = new Date().toISOString().slice(0, 10);
    expect(
      await daily
        .getByRole('row', { name: new RegExp(today) })
        .getByRole('cell')
        .first()
        .textContent(),
    ).toBe('3');
    expect(await page.getByRole('img', { name: /^Agents: 1 agent made 3 calls/ }).count()).toBe(1);
    await page.getByText('Choose a campaign to see its funnel.').waitFor();

    await page.getByRole('combobox', { name: /^Campaign/ }).selectOption(campaignId);
    await page.getByRole('button', { name: 'Show' }).click();
    const funnel = page.getByRole('figure', { name: 'Campaign funnel' });
    await funnel.getByText('3 customers; 3 calls placed').waitFor();
    await eventually(
      async () => (await paintedPixels(page, 'figure[aria-labelledby="chart-campaign-funnel-title"] canvas')) > 500,
      'the funnel painted',
    );

    const count = page.locator('output.live-count');
    await page.getByRole('status').filter({ hasText: 'Connected' }).waitFor();
    const before = Number(await count.textContent());
    expect((await ready.call('POST', '/dispositions', { name: 'Wrong number' })).status).toBe(201);
    await page.getByRole('list', { name: 'Latest events' }).getByText('DispositionCreated').waitFor();
    expect(Number(await count.textContent())).toBeGreaterThan(before);
    await screenshots(page, 'analytics');
  });

  it('shows a stream picked from the events, its history, and its state at an instant', async () => {
    const page = watch(await c.open('/audit'));
    const stream = `dispositionCatalog-${c.org.id}`;
    await page.getByRole('heading', { level: 2, name: 'Events' }).waitFor();
    await page.getByLabel('Event types').fill('DispositionGroupCreated');
    await page.getByRole('button', { name: 'Filter' }).click();
    // The list shows the filtered events once the answer came: every row is then of the type asked for.
    const eventTypes = page.getByRole('table').first().locator('tbody tr td:nth-child(2)');
    await page.waitForFunction(
      () => {
        const cells = Array.from(document.querySelectorAll('table tbody tr td:nth-child(2)'));
        return cells.length > 0 && cells.every((cell) => cell.textContent === 'DispositionGroupCreated');
      },
      undefined,
      { timeout: 10_000 },
    );
    expect(new Set(await eventTypes.allTextContents())).toEqual(new Set(['DispositionGroupCreated']));
    await page
      .getByRole('button', { name: `History of ${stream}` })
      .first()
      .click();
    await page.getByRole('heading', { level: 2, name: `History of ${stream}` }).waitFor();
    expect(page.url()).toContain(`stream=${encodeURIComponent(stream)}`);
    const history = page.getByRole('table').first();
    await history.getByText('DispositionCreated').first().waitFor();
    const types = await history.locator('tbody tr td:nth-child(2)').allTextContents();
    expect(types.slice(0, 3)).toEqual(['DispositionCreated', 'DispositionCreated', 'DispositionGroupCreated']);

    // The state just after the first event: one disposition, the second not yet.
    await page.getByRole('button', { name: 'State after revision 0' }).click();
    const state = page.getByLabel(`State of ${stream} as JSON`);
    await state.waitFor();
    await page.getByText('after revision 0:').waitFor();
    const first = JSON.parse((await state.textContent())!);
    expect(Object.values(first.dispositions).map((d: any) => d.name)).toEqual(['Promise to pay']);
    expect(first.groups).toEqual({});

    // Now: every disposition and the group.
    await page.getByRole('button', { name: 'State now' }).click();
    await eventually(async () => {
      const now = JSON.parse((await state.textContent())!);
      return Object.keys(now.groups).length === 1 && Object.keys(now.dispositions).length >= 2;
    }, 'the state now');
    await screenshots(page, 'audit');
  });

  it('streams speech over the WebSocket, plays it, times the first audio and highlights the words', async () => {
    const page = watch(await c.open('/speech'));
    await page.getByRole('combobox', { name: /^Voice/ }).waitFor();
    await page.getByRole('combobox', { name: /^Sample rate/ }).selectOption('16000');
    await page.getByRole('button', { name: 'Speak' }).click();
    // A word is marked while it is heard, from the Web Audio clock.
    await page.locator('.spoken-words mark').first().waitFor({ timeout: 30_000 });
    await page.getByRole('status').filter({ hasText: 'Complete' }).waitFor({ timeout: 60_000 });
    const firstAudioMs = Number(await page.locator('.first-audio data').getAttribute('value'));
    expect(firstAudioMs).toBeGreaterThan(0);
    expect(firstAudioMs).toBeLessThan(10_000);
    await page.getByText(/^\d+ ms$/).waitFor();
    const samples = Number(await page.locator('.samples data').getAttribute('value'));
    expect(samples).toBeGreaterThan(16000);
    // Once played, every word was heard.
    const words = page.locator('.spoken-words .word');
    expect(await words.count()).toBeGreaterThan(10);
    await eventually(
      async () => (await page.locator('.spoken-words .word.said').count()) === (await words.count()),
      'every word heard',
    );

    // The audio received, saved as WAV and decoded here: all of it, and speech rather than silence.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Save the audio (WAV)' }).click(),
    ]);
    const wav = parseWav(new Uint8Array(readFileSync((await download.path())!)));
    expect(wav).toMatchObject({ sampleRate: 16000, channels: 1, bitsPerSample: 16 });
    expect(wav.samples.length).toBe(samples);
    expect(rms(wav.samples)).toBeGreaterThan(300);
    await screenshots(page, 'speech');
  });

  it('never put the token in a URL, nor asked anything of another origin', () => {
    expect(urls.some((url) => url.includes('/api/v1/events/live'))).toBe(true);
    expect(urls.some((url) => url.startsWith('ws') && url.endsWith('/api/v1/get_speech'))).toBe(true);
    expect(urls.filter((url) => url.includes(c.org.token))).toEqual([]);
    expect(c.foreignRequests).toEqual([]);
  });
});
