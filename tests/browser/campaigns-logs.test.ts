/// <reference lib="dom" />
/**
 * The campaigns and logs pages in a real browser, as an operator uses them: create a campaign, add
 * its customers from a CSV file (the API's refusal of a line shown against that line), start their
 * calls and chats, watch the logs fill in, and open a call (its transcript beside its recording, which
 * plays) and a chat. The token goes in no URL: the recording is fetched with the Authorization header
 * and played from an object URL. Nothing is loaded from elsewhere.
 */
import type { Page } from 'playwright-core';
import { prepareOrganization, type Ready } from '../integration/workflows/setup';
import { describeInBrowser, screenshots, startConsole, type Console } from './support';

jest.setTimeout(300_000);

const CSV = [
  'loan_id,first_name,last_name,phone_number,loan_amount,emi_amount,loan_period,current_emi,emi_due_date,payment_status,language',
  'CSV-1,Meera,Iyer,+919811100001,120000,6000,20,3,2026-05-05,pending,english',
  'CSV-2,Ravi,Kumar,+919811100002,90000,4500,20,5,2026-05-07,pending,hindi',
  'CSV-3,Anil,Shah,not-a-phone,50000,2500,20,1,2026-05-09,pending,english',
  '',
  'CSV-4,Lata,Das,+919811100004,75000,3750,20,2,2026-05-11,bounced,english',
  'CSV-2,Ravi,Kumar,+919811100002,90000,4500,20,5,2026-05-07,pending,hindi',
].join('\n');

describeInBrowser('operator console: campaigns and logs', () => {
  let c: Console;
  let ready: Ready;
  beforeAll(async () => {
    // The speech engine records the calls' conversations, so a call has a recording to play.
    c = await startConsole({ SERVICES: 'speech,agent' });
    const call: Ready['call'] = (method, path, body) =>
      c.t.request(method, `/api/v1${path}`, { token: c.org.token, body });
    ready = await prepareOrganization(c.org, call);
    const template = await call('POST', '/chat/templates', { name: 'EMI reminder', body: 'Hello {{first_name}}' });
    expect(template.status).toBe(201);
  }, 240_000);
  afterAll(() => c?.close());

  /** Every URL the page asks for, to check the token is in none of them. */
  const urlsOf = (page: Page) => {
    const urls: string[] = [];
    page.on('request', (request) => urls.push(request.url()));
    return urls;
  };

  it('creates a campaign, adds customers from a file, starts calls and chats, and shows them in the logs', async () => {
    const page = await c.open('/campaigns');
    const urls = urlsOf(page);
    await page.getByRole('heading', { level: 1, name: 'Campaigns' }).waitFor();

    // Create: the form is folded until opened; a collection organization with no campaign yet is offered every type.
    await page.locator('summary', { hasText: 'Create a campaign' }).click();
    const create = page.getByRole('form', { name: 'Create a campaign' });
    await create.getByLabel('Name').fill('Spring EMI');
    await create.getByLabel('Type').selectOption({ label: 'Lead generation' });
    await create.getByRole('button', { name: 'Create campaign' }).click();
    // The API's refusal, in place: a collection organization runs EMI or EDI campaigns.
    await create.getByRole('alert').getByText('campaignType must be one of emi, edi').waitFor();
    await create.getByLabel('Type').selectOption({ label: 'EMI collection' });
    await create.getByLabel('Description').fill('May instalments');
    await create.getByRole('button', { name: 'Create campaign' }).click();
    await page.getByRole('heading', { level: 1, name: 'Spring EMI' }).waitFor();

    // The list: the new campaign, its status, pause and resume.
    await page.getByRole('link', { name: '← All campaigns' }).click();
    const row = page.getByRole('row', { name: /Spring EMI/ });
    await row.getByText('Active').waitFor();
    await row.getByRole('button', { name: 'Pause Spring EMI' }).click();
    await row.getByText('Paused').waitFor();
    await page.getByLabel('Status').selectOption('paused');
    await page.getByRole('row', { name: /Spring EMI/ }).waitFor();
    await page.getByLabel('Status').selectOption('active');
    await page.getByText('No campaign matches these filters.').waitFor();
    await page.getByLabel('Status').selectOption('');
    await row.getByRole('button', { name: 'Resume Spring EMI' }).click();
    await row.getByText('Active').waitFor();
    await screenshots(page, 'campaigns');

    // Customers from a file: the bad line is shown against its line number, with the API's reason.
    await row.getByRole('link', { name: 'Spring EMI' }).click();
    await page.getByRole('heading', { level: 1, name: 'Spring EMI' }).waitFor();
    await page.locator('summary', { hasText: 'Add customers from a CSV file' }).click();
    const bulk = page.getByRole('form', { name: 'Add customers from a CSV file' });
    await bulk
      .getByLabel('CSV file')
      .setInputFiles({ name: 'customers.csv', mimeType: 'text/csv', buffer: Buffer.from(CSV) });
    await page.getByText('5 customers read from customers.csv.').waitFor();
    await bulk.getByRole('button', { name: 'Add the customers' }).click();
    await page.getByText('3 of 5 customers added').waitFor();
    const report = page.getByLabel('What the bulk add did');
    const bad = report.getByRole('row', { name: /CSV-3/ });
    expect(await bad.getByRole('cell').allInnerTexts()).toEqual([
      '4',
      'CSV-3',
      'Anil Shah',
      'Invalid: phone_number must be 7 to 15 digits with an optional leading +',
    ]);
    // The second line of a key already in the file: the API names the key, the page finds the line.
    expect(
      await report
        .getByRole('row', { name: /^7 CSV-2/ })
        .getByRole('cell')
        .allInnerTexts(),
    ).toEqual(['7', 'CSV-2', 'Ravi Kumar', 'Not added: Duplicate loan_id in this request']);
    expect(await report.getByRole('row').count()).toBe(3); // the header and the two lines not added
    const counts = await report.locator('.counts div').allInnerTexts();
    expect(counts.map((t) => t.replace(/\s+/g, ' '))).toEqual([
      'RECORDS 5',
      'VALID 4',
      'INVALID 1',
      'ADDED 3',
      'NOT ADDED 1',
    ]);

    // The customers, and the filters of the page shown (the API filters this list by page only).
    const customers = page.getByRole('table', { name: 'Customers' });
    await customers.getByRole('row', { name: /CSV-4/ }).waitFor();
    expect(await customers.getByRole('row').count()).toBe(4);
    await page
      .getByRole('group', { name: 'Filter the customers shown' })
      .getByLabel('Payment status')
      .selectOption('bounced');
    expect(await customers.getByRole('row').count()).toBe(2);
    await page.getByText('(1 of its 3)').waitFor();
    await page.getByRole('group', { name: 'Filter the customers shown' }).getByLabel('Payment status').selectOption('');

    // One customer by hand: the collection record's fields.
    await page.locator('summary', { hasText: 'Add one customer' }).click();
    const one = page.getByRole('form', { name: 'Add one customer' });
    await one.getByLabel('Loan id').fill('CSV-1');
    await one.getByLabel('First name').fill('Meera');
    await one.getByLabel('Last name').fill('Iyer');
    await one.getByLabel('Phone number').fill('+919811100009');
    await one.getByLabel('Loan amount').fill('1000');
    await one.getByLabel('EMI amount').fill('100');
    await one.getByLabel('Loan period').fill('10');
    await one.getByLabel('Current EMI number').fill('1');
    await one.getByLabel('EMI due on').fill('2026-06-01');
    await one.getByLabel('Payment status').selectOption('pending');
    await one.getByRole('button', { name: 'Add customer' }).click();
    await one.getByRole('alert').getByText('Customer with this loan_id already exists in this campaign').waitFor();
    await one.getByLabel('Loan id').fill('HAND-1');
    await one.getByRole('button', { name: 'Add customer' }).click();
    await one.getByText('Added customer HAND-1.').waitFor();
    await customers.getByRole('row', { name: /HAND-1/ }).waitFor();
    await screenshots(page, 'campaign-customers');

    // Calls, to the customers whose payment is pending, with the agent and disposition group chosen by name.
    const calls = page.getByRole('form', { name: 'Start calls' });
    await calls.getByLabel('Agent').selectOption({ label: 'Asha' });
    await calls.getByLabel('Disposition group').selectOption({ label: 'Outcomes' });
    await calls.getByRole('checkbox', { name: 'pending' }).check();
    await calls.getByRole('button', { name: 'Start calls' }).click();
    const started = page.getByLabel('What starting the calls did');
    await started.getByText('Calls initiated for 3 customers').waitFor();

    const chats = page.getByRole('form', { name: 'Start chats' });
    await chats.getByLabel('Template').selectOption({ label: 'EMI reminder' });
    await chats.getByLabel('Only these ids').fill('CSV-4');
    await chats.getByRole('button', { name: 'Start chats' }).click();
    await page.getByLabel('What starting the chats did').getByText('Chat messages initiated for 1 customers').waitFor();

    // The logs of the campaign fill in: three calls and a chat.
    const campaignId = page.url().split('/').pop()!;
    const ended = await callsEnded(campaignId, 3);
    await page.getByRole('link', { name: 'Calls and chats of this campaign' }).click();
    await page.getByRole('heading', { level: 1, name: 'Logs' }).waitFor();
    expect(new URL(page.url()).searchParams.get('campaign_id')).toBe(campaignId);
    const logs = page.getByRole('table', { name: 'Calls and chats' });
    for (let tries = 0; (await logs.getByRole('row').count()) < 5; tries++) {
      if (tries > 30) throw new Error('the logs did not fill in');
      await page.getByRole('button', { name: 'Refresh' }).click();
      await page.waitForTimeout(500);
    }
    await page.getByText('3 calls, 1 chat match.').waitFor();
    expect(await logs.getByRole('link', { name: /Open the call/ }).count()).toBe(3);
    await screenshots(page, 'logs');

    // A filter from the form: the chats only.
    await page.getByRole('form', { name: 'Filter the logs' }).getByLabel('Type').selectOption('chat');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('1 chat match.').waitFor();
    expect(new URL(page.url()).searchParams.get('type')).toBe('chat');
    await logs.getByRole('link', { name: /Open the chat with Lata Das/ }).click();
    await page.getByRole('heading', { level: 1, name: 'Chat with Lata Das' }).waitFor();
    await page.getByRole('list').filter({ hasText: 'Hello Lata' }).waitFor();
    // The platform's answer: delivered (or read), or failed with its delivery error; either is shown.
    await page.getByRole('region', { name: 'Delivery' }).locator('.notice, .delivery-errors li').first().waitFor();
    await page.goBack();
    await page.getByText('1 chat match.').waitFor();

    // A call: its transcript beside its recording, which plays.
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByText('3 calls, 1 chat match.').waitFor();
    const { call_id: callId, name, transcript_id: transcriptId } = await aRecordedCall(campaignId, ended);
    if (await page.locator(`a[href$="/logs/call/${callId}"]`).count()) {
      await page.locator(`a[href$="/logs/call/${callId}"]`).click();
    } else await page.goto(`${c.t.url}/console/logs/call/${callId}`);
    await page.getByRole('heading', { level: 1, name: `Call with ${name}` }).waitFor();
    const transcript = await ready.call('GET', `/transcript/${transcriptId}`);
    const turns = page.getByRole('region', { name: 'Transcript' }).getByRole('listitem');
    await turns.first().waitFor();
    expect(await turns.count()).toBe(transcript.body.data.length);
    await turns.first().getByText(transcript.body.data[0].message).waitFor();
    const audio = page.getByLabel(`Recording of the call with ${name}`);
    await audio.waitFor();
    expect(await audio.getAttribute('src')).toMatch(/^blob:/);
    const played = await audio.evaluate(async (element) => {
      const player = element as HTMLAudioElement;
      if (player.readyState < 1)
        await new Promise((resolve, reject) => {
          player.addEventListener('loadedmetadata', resolve, { once: true });
          player.addEventListener('error', () => reject(new Error('the recording does not load')), { once: true });
        });
      const duration = player.duration;
      player.muted = true;
      await player.play();
      const started = player.currentTime;
      await new Promise((resolve) => setTimeout(resolve, 1200));
      const later = player.currentTime;
      player.pause();
      // Seeking works on the whole file the object URL holds.
      player.currentTime = duration / 2;
      await new Promise((resolve) => player.addEventListener('seeked', resolve, { once: true }));
      return { duration, started, later, seekedTo: player.currentTime };
    });
    expect(played.duration).toBeGreaterThan(1);
    expect(played.later).toBeGreaterThan(played.started);
    expect(played.seekedTo).toBeCloseTo(played.duration / 2, 0);
    await screenshots(page, 'call-detail');

    expect(urls.filter((u) => u.includes(c.org.token))).toEqual([]);
    expect(urls.some((u) => u.includes('/api/v1/recording/'))).toBe(true);
    expect(c.foreignRequests).toEqual([]);
  });

  it('deletes a campaign only once the operator confirms', async () => {
    const created = await ready.call('POST', '/campaigns/create', { name: 'Old leads', campaignType: 'edi' });
    expect(created.status).toBe(201);
    const page = await c.open('/campaigns');
    const row = page.getByRole('row', { name: /Old leads/ });
    await row.getByRole('button', { name: 'Delete' }).click();
    await row.getByText('Delete “Old leads”?').waitFor();
    await row.getByRole('button', { name: 'Cancel' }).click();
    await row.getByRole('button', { name: 'Delete' }).click();
    await row.getByRole('button', { name: 'Yes, delete' }).click();
    await row.waitFor({ state: 'detached' });
    expect((await ready.call('GET', `/campaigns/${created.body.data.id}`)).status).toBe(404);
    expect(c.foreignRequests).toEqual([]);
  });

  it("asks a lead generation organization's customers for a lead id, which the service makes up when left out", async () => {
    const org = await c.t.newOrganization('lead_generation');
    const created = await c.t.request('POST', '/api/v1/campaigns/create', {
      token: org.token,
      body: { name: 'Website leads', campaignType: 'lead' },
    });
    expect(created.status).toBe(201);
    const page = await c.open('/campaigns', { token: org.token });
    // The organization's type, as its campaigns show it, decides the types offered.
    await page.locator('summary', { hasText: 'Create a campaign' }).click();
    const type = page.getByRole('form', { name: 'Create a campaign' }).getByLabel('Type');
    await type.locator('option', { hasText: 'Lead generation' }).waitFor({ state: 'attached' });
    expect(await type.locator('option').allInnerTexts()).toEqual(['Choose…', 'Lead generation']);

    await page.getByRole('link', { name: 'Website leads' }).click();
    await page.locator('summary', { hasText: 'Add one customer' }).click();
    const one = page.getByRole('form', { name: 'Add one customer' });
    expect(await one.getByLabel('Loan id').count()).toBe(0);
    expect(await one.getByLabel('Payment status').count()).toBe(0);
    await one.getByLabel('First name').fill('Kiran');
    await one.getByLabel('Last name').fill('Rao');
    await one.getByLabel('Phone number').fill('+919822200001');
    await one.getByLabel('Lead date').fill('2026-04-01');
    await one.getByRole('button', { name: 'Add customer' }).click();
    await one.getByText(/Added customer [0-9a-f-]{36}\./).waitFor();
    const customers = page.getByRole('table', { name: 'Customers' });
    await customers.getByRole('columnheader', { name: 'Lead id' }).waitFor();
    await customers.getByRole('row', { name: /Kiran Rao/ }).waitFor();
    expect(c.foreignRequests).toEqual([]);
  });

  type CallEntry = {
    call_id: string;
    name: string;
    loan_id: string;
    status: string;
    transcript_id: string;
    recording_id: string;
  };

  /** The campaign's calls once `count` of them have ended (a call's recording is stored before its end is reported). */
  async function callsEnded(campaignId: string, count: number): Promise<CallEntry[]> {
    const until = Date.now() + 120_000;
    for (;;) {
      const reply = await ready.call('GET', `/logs?type=call&campaign_id=${campaignId}`);
      const calls = reply.body.data as CallEntry[];
      const ended = calls.filter((e) => ['Completed', 'No Contact', 'Failed'].includes(e.status));
      if (ended.length >= count) return ended;
      if (Date.now() > until) throw new Error(`calls not ended in time: ${JSON.stringify(calls.map((e) => e.status))}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  /**
   * A call of the campaign with a recording. About a quarter of the simulated calls are not answered
   * (busy, no answer) and have none: when no call of the page has one, the same customers are called
   * again, through the API, until one is answered.
   */
  async function aRecordedCall(campaignId: string, ended: CallEntry[]): Promise<CallEntry> {
    for (let round = 0; ; round++) {
      const recorded = ended.find((e) => e.recording_id);
      if (recorded) return recorded;
      if (round === 5) throw new Error('no call answered in six rounds');
      const again = await ready.call('POST', `/initiate/${campaignId}/calls`, {
        agentId: ready.agentId,
        dispositionId: ready.dispositionId,
        filters: { ids: [...new Set(ended.map((e) => e.loan_id))] },
      });
      expect(again.status).toBe(200);
      ended = await callsEnded(campaignId, ended.length * 2);
    }
  }
});
