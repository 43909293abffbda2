/// <reference lib="dom" />
/**
 * The settings pages in a real browser: on each, the operator creates something, finds it listed,
 * changes it and deletes it (as far as the API allows), and an action the API refuses shows the API's
 * message where it was taken. Each page is photographed at laptop and phone width for docs/console/.
 */
import type { Locator, Page } from 'playwright-core';
import { loanRecord } from '../support/records';
import { ALLOW_PRIVATE, callReadyOrganization, placeCall, startReceiver } from '../integration/webhooks/support';
import { describeInBrowser, screenshots, startConsole, type Console } from './support';

jest.setTimeout(240_000);

/** The browser waits this long for what a page shows (the machine is shared and slow at times). */
const SHOWN = { timeout: 20_000 };

describeInBrowser('operator console: settings pages', () => {
  let c: Console;
  beforeAll(async () => {
    // The webhook receiver listens on 127.0.0.1; its first answer fails so a delivery has two attempts.
    c = await startConsole({ ...ALLOW_PRIVATE, WEBHOOK_RETRY_BASE_MS: '200', WEBHOOK_MAX_ATTEMPTS: '4' });
  });
  afterAll(() => c?.close());

  const call = async (method: string, path: string, body?: unknown) => {
    const reply = await c.t.request(method, `/api/v1${path}`, { token: c.org.token, body });
    if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${reply.text}`);
    return reply.body;
  };
  const cell = (page: Page, name: string) => page.getByRole('cell', { name, exact: true });
  const button = (scope: Page | Locator, name: string) => scope.getByRole('button', { name, exact: true });
  const form = (page: Page, name: string) => page.getByRole('form', { name });
  /** Confirms the delete the dialog asks about. */
  const confirm = async (page: Page, verb = 'delete') => {
    const dialog = page.getByRole('dialog');
    await button(dialog, `Yes, ${verb}`).click();
    return dialog;
  };
  const gone = (locator: Locator) => locator.waitFor({ state: 'detached', ...SHOWN });

  it('dispositions and groups: create, search, edit, group, delete; a duplicate name and a grouped delete refused in place', async () => {
    const page = await c.open('/dispositions');
    await page.getByRole('heading', { level: 1, name: 'Dispositions' }).waitFor(SHOWN);

    for (const [name, priority] of [
      ['Promise to pay', '5'],
      ['Callback', '2'],
    ] as const) {
      await button(page, 'New disposition').click();
      const editor = form(page, 'New disposition');
      await editor.getByLabel('Name').fill(name);
      await editor.getByLabel('Priority').fill(priority);
      await editor.getByLabel('Description').fill(`Customer said: ${name.toLowerCase()}`);
      await button(editor, 'Create disposition').click();
      await cell(page, name).first().waitFor(SHOWN);
    }

    // A second disposition of the same name: the API's 409, beside the form.
    await button(page, 'New disposition').click();
    const duplicate = form(page, 'New disposition');
    await duplicate.getByLabel('Name').fill('Callback');
    await button(duplicate, 'Create disposition').click();
    await duplicate.getByRole('alert').getByText('A disposition with this name already exists').waitFor(SHOWN);
    await button(duplicate, 'Cancel').click();

    await button(page, 'Edit Callback').click();
    const edit = form(page, 'Edit disposition “Callback”');
    await edit.getByLabel('Name').fill('Call back later');
    await button(edit, 'Save disposition').click();
    await cell(page, 'Call back later').first().waitFor(SHOWN);

    await page.getByRole('searchbox', { name: 'Search dispositions' }).fill('later');
    await page.getByRole('searchbox', { name: 'Search dispositions' }).press('Enter');
    await gone(cell(page, 'Promise to pay'));
    await page.getByRole('searchbox', { name: 'Search dispositions' }).fill('');
    await cell(page, 'Promise to pay').waitFor(SHOWN);

    await button(page, 'New group').click();
    const group = form(page, 'New group');
    await group.getByLabel('Group name').fill('Reached');
    await group.getByRole('checkbox', { name: 'Promise to pay' }).check();
    await group.getByRole('checkbox', { name: 'Call back later' }).check();
    await button(group, 'Create group').click();
    const members = page.getByRole('list', { name: 'Members of Reached' });
    await members.getByText('Call back later').waitFor(SHOWN);
    expect(await members.getByRole('listitem').allTextContents()).toEqual(
      expect.arrayContaining(['Promise to pay', 'Call back later']),
    );

    // A disposition in a group cannot be deleted: the API's 400 in the dialog that asked.
    await button(page, 'Delete Promise to pay').click();
    const refused = await confirm(page);
    await refused
      .getByRole('alert')
      .getByText('Cannot delete: Disposition is used in group(s): Reached')
      .waitFor(SHOWN);
    await button(refused, 'Cancel').click();
    await gone(page.getByRole('dialog'));

    await button(page, 'Edit Reached').click();
    const regroup = form(page, 'Edit group “Reached”');
    await regroup.getByLabel('Group name').fill('Reached customer');
    await regroup.getByRole('checkbox', { name: 'Promise to pay' }).uncheck();
    await button(regroup, 'Save group').click();
    const after = page.getByRole('list', { name: 'Members of Reached customer' });
    await after.waitFor(SHOWN);
    expect(await after.getByRole('listitem').allTextContents()).toEqual(['Call back later']);
    await screenshots(page, 'dispositions');

    await button(page, 'Delete Promise to pay').click();
    await confirm(page);
    await gone(cell(page, 'Promise to pay'));
    await button(page, 'Delete Reached customer').click();
    await confirm(page);
    await gone(cell(page, 'Reached customer'));
    await page.getByText('No groups yet.').waitFor(SHOWN);
  });

  it('agents: create one and find it listed; a blank name refused with the API’s details; no edit or delete offered', async () => {
    const page = await c.open('/agents');
    await page.getByRole('heading', { level: 1, name: 'Agents' }).waitFor(SHOWN);

    await button(page, 'New agent').click();
    const blank = form(page, 'New agent');
    await blank.getByLabel('Name', { exact: true }).fill('   ');
    await button(blank, 'Create agent').click();
    const alert = blank.getByRole('alert');
    await alert.getByText('Validation failed').waitFor(SHOWN);
    await alert.getByText('name has an invalid format').waitFor(SHOWN);

    await blank.getByLabel('Name', { exact: true }).fill('Asha');
    await blank.getByRole('combobox', { name: 'Language' }).selectOption({ label: 'Hindi' });
    await blank.getByRole('combobox', { name: 'Voice' }).selectOption({ label: 'Nisha (female, warm and low)' });
    await blank.getByLabel('Greeting').fill('Namaste {{first_name}}');
    await blank.getByLabel('Lines').fill('Your EMI is due.\nCan you pay today?');
    await button(blank, 'Create agent').click();
    await cell(page, 'Asha').waitFor(SHOWN);
    await cell(page, 'Hindi').waitFor(SHOWN);
    await cell(page, 'Nisha').waitFor(SHOWN);
    await page.getByRole('status').getByText('Agent “Asha” created.').waitFor(SHOWN);
    // The API has no route to change or delete an agent: the page offers neither, and says so.
    expect(await page.getByRole('button', { name: /^(Edit|Delete) Asha/ }).count()).toBe(0);
    await page.getByText('An agent cannot be changed or deleted once created').waitFor(SHOWN);
    await screenshots(page, 'agents');
  });

  it('numbers: search the inventory and buy two; a search that matches nothing shows the API’s 404 message', async () => {
    const page = await c.open('/numbers');
    await page.getByRole('heading', { level: 1, name: 'Numbers' }).waitFor(SHOWN);
    await page.getByText('The organization has no numbers yet').waitFor(SHOWN);

    const search = form(page, 'Search available numbers');
    await search.getByLabel('Starts with').fill('0000');
    await button(search, 'Search numbers').click();
    await search.getByRole('alert').getByText('No available numbers found for provider builtin').waitFor(SHOWN);

    await search.getByLabel('Starts with').fill('');
    await button(search, 'Search numbers').click();
    const choices = page.getByRole('checkbox', { name: /^Choose \+/ });
    await choices.first().waitFor(SHOWN);
    const wanted = (await choices.evaluateAll((boxes) => boxes.map((b) => b.getAttribute('aria-label')!))).slice(0, 2);
    const numbers = wanted.map((label) => label.replace('Choose ', ''));
    for (const label of wanted) await page.getByRole('checkbox', { name: label, exact: true }).check();
    await button(page, 'Buy 2 chosen numbers').click();
    await page
      .getByRole('status')
      .getByText(`Bought ${numbers.join(', ')}.`)
      .waitFor(SHOWN);
    for (const number of numbers) await cell(page, number).waitFor(SHOWN);
    expect((await call('GET', '/numbers')).data.map((n: { number: string }) => n.number).sort()).toEqual(
      [...numbers].sort(),
    );
    await page.getByText('A number cannot be released from here').waitFor(SHOWN);
    await screenshots(page, 'numbers');
  });

  it('blacklist: add, rename, remove; a number that is not one refused with the API’s details', async () => {
    const page = await c.open('/blacklist');
    await page.getByRole('heading', { level: 1, name: 'Blacklist' }).waitFor(SHOWN);
    await page.getByText('No number is blacklisted.').waitFor(SHOWN);

    await button(page, 'Add a number').click();
    const add = form(page, 'Add a number to the blacklist');
    await add.getByLabel('Phone number').fill('12');
    await button(add, 'Add to blacklist').click();
    await add.getByRole('alert').getByText('Validation failed').waitFor(SHOWN);
    await add.getByRole('alert').getByText('[0].number must be 7 to 15 digits').waitFor(SHOWN);

    await add.getByLabel('Phone number').fill('+91 98111-22233');
    await add.getByLabel('Name').fill('Do not call');
    await button(add, 'Add to blacklist').click();
    await cell(page, '+919811122233').waitFor(SHOWN);
    await cell(page, 'Do not call').waitFor(SHOWN);

    await button(page, 'Rename +919811122233').click();
    const rename = form(page, 'Rename +919811122233');
    await rename.getByLabel('Name').fill('Ravi (asked not to be called)');
    await button(rename, 'Save name').click();
    await cell(page, 'Ravi (asked not to be called)').waitFor(SHOWN);
    await screenshots(page, 'blacklist');

    await button(page, 'Remove +919811122233').click();
    await confirm(page, 'remove');
    await page.getByText('No number is blacklisted.').waitFor(SHOWN);
    expect((await call('GET', '/blacklist')).data).toEqual([]);
  });

  it('workflows: create with typed steps, edit, follow a run, delete; a wait for an outcome before any contact refused in place', async () => {
    const kiran = (await call('POST', '/agents', { name: 'Kiran', language: 'en' })).data.id as string;
    const meera = (await call('POST', '/agents', { name: 'Meera', language: 'en' })).data.id as string;
    await call('POST', '/dispositions', { name: 'Paid in full' });
    const page = await c.open('/workflows');
    await page.getByRole('heading', { level: 1, name: 'Workflows' }).waitFor(SHOWN);

    // A first step that waits for the outcome of a contact never made: the API's 400 with its reason.
    await button(page, 'New workflow').click();
    const wrong = form(page, 'New workflow');
    await wrong.getByLabel('Workflow name').fill('Backwards');
    await wrong
      .getByRole('group', { name: 'Step 1: Place a call' })
      .getByRole('combobox', { name: 'Type' })
      .selectOption('wait_for_outcome');
    await button(wrong, 'Create workflow').click();
    await wrong.getByRole('alert').getByText('Validation failed').waitFor(SHOWN);
    await wrong
      .getByRole('alert')
      .getByText('steps[0] waits for an outcome, but no earlier step sends a chat or places a call')
      .waitFor(SHOWN);
    await button(wrong, 'Cancel').click();

    await button(page, 'New workflow').click();
    const create = form(page, 'New workflow');
    await create.getByLabel('Workflow name').fill('Remind');
    const first = create.getByRole('group', { name: 'Step 1: Place a call' });
    await first.getByRole('combobox', { name: 'Agent', exact: true }).selectOption({ label: 'Kiran' });
    await first.getByRole('combobox', { name: 'Disposition', exact: true }).selectOption({ label: 'Paid in full' });
    await button(create, 'Add a step').click();
    const second = create.getByRole('group', { name: 'Step 2: Wait' });
    await second.getByRole('spinbutton', { name: 'Wait for' }).fill('2');
    await second.getByRole('combobox', { name: 'Unit' }).selectOption('hours');
    await button(create, 'Add a step').click();
    await create
      .getByRole('group', { name: 'Step 3: Wait' })
      .getByRole('combobox', { name: 'Type' })
      .selectOption('end');
    await create.getByRole('group', { name: 'Step 3: End' }).waitFor(SHOWN);
    await button(create, 'Create workflow').click();
    await cell(page, 'Remind').waitFor(SHOWN);
    await page.getByRole('listitem').getByText('Wait 2 hours').waitFor(SHOWN);
    const [created] = (await call('GET', '/workflows')).data;
    expect(created.steps).toEqual([
      { type: 'place_call', agentId: kiran, dispositionId: expect.any(String) },
      { type: 'wait', seconds: 7200 },
      { type: 'end' },
    ]);

    await button(page, 'Edit Remind').click();
    const edit = form(page, 'Edit workflow “Remind”');
    await edit.getByLabel('Workflow name').fill('Remind, then wait a day');
    await edit
      .getByRole('group', { name: 'Step 1: Place a call' })
      .getByRole('combobox', { name: 'Agent', exact: true })
      .selectOption({ label: 'Meera' });
    const wait = edit.getByRole('group', { name: 'Step 2: Wait' });
    await wait.getByRole('spinbutton', { name: 'Wait for' }).fill('1');
    await wait.getByRole('combobox', { name: 'Unit' }).selectOption('days');
    // A wait for the call's outcome, added last and moved up to follow the call; then a branch on it.
    await button(edit, 'Add a step').click();
    await edit
      .getByRole('group', { name: 'Step 4: Wait' })
      .getByRole('combobox', { name: 'Type' })
      .selectOption('wait_for_outcome');
    await button(edit, 'Move step 4 up').click();
    await button(edit, 'Move step 3 up').click();
    await edit.getByRole('group', { name: 'Step 2: Wait for the outcome' }).waitFor(SHOWN);
    await button(edit, 'Add a step').click();
    await edit
      .getByRole('group', { name: 'Step 5: Wait' })
      .getByRole('combobox', { name: 'Type' })
      .selectOption('branch');
    const branch = edit.getByRole('group', { name: 'Step 5: Branch' });
    await branch.getByRole('combobox', { name: 'Case 1: go to' }).selectOption({ label: 'Step 4: End' });
    await branch.getByRole('combobox', { name: 'Case 1: when it is' }).fill('Completed');
    await button(edit, 'Save workflow').click();
    await cell(page, 'Remind, then wait a day').waitFor(SHOWN);
    await page.getByRole('listitem').getByText('Wait 1 day').waitFor(SHOWN);
    const [edited] = (await call('GET', '/workflows')).data;
    expect(edited.steps).toEqual([
      { type: 'place_call', agentId: meera, dispositionId: expect.any(String) },
      { type: 'wait_for_outcome' },
      { type: 'wait', seconds: 86400 },
      { type: 'end' },
      { type: 'branch', on: 'status', cases: [{ equals: 'Completed', goTo: 3 }] },
    ]);

    // A customer added with useWorkflow starts a run, which the page lists.
    const campaignId = (await call('POST', '/campaigns/create', { name: 'Workflow campaign', campaignType: 'emi' }))
      .data.id as string;
    const added = await call('POST', '/customers/add', {
      campaignId,
      data: loanRecord('LN-RUN-1'),
      useWorkflow: true,
      workflowId: edited.id,
    });
    expect(added.workflowTriggered).toBe(true);
    await button(page, 'Runs Remind, then wait a day').click();
    const runs = page.getByRole('region', { name: 'Runs of “Remind, then wait a day”' });
    for (let i = 0; i < 40 && (await runs.getByRole('cell', { name: 'LN-RUN-1' }).count()) === 0; i++) {
      await button(runs, 'Refresh runs').click();
      await page.waitForTimeout(250);
    }
    await runs.getByRole('cell', { name: 'LN-RUN-1' }).waitFor(SHOWN);
    // The photograph shows the steps being edited above the runs.
    await button(page, 'Edit Remind, then wait a day').click();
    const shown = form(page, 'Edit workflow “Remind, then wait a day”');
    await shown.getByRole('group', { name: 'Step 5: Branch' }).waitFor(SHOWN);
    await screenshots(page, 'workflows');
    await button(shown, 'Cancel').click();

    await button(page, 'Delete Remind, then wait a day').click();
    await confirm(page);
    await gone(cell(page, 'Remind, then wait a day'));
    await page.getByText('No workflows yet.').waitFor(SHOWN);
  });

  it('webhooks: set, see deliveries with their attempts, change, remove; a URL that is not http(s) refused with the API’s details', async () => {
    const receiver = await startReceiver((n) => (n === 1 ? 500 : 200));
    try {
      const setup = await callReadyOrganization(c.t);
      const page = await c.open('/webhooks', { token: setup.org.token });
      await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor(SHOWN);
      await page.getByText('No webhook is set').waitFor(SHOWN);

      await button(page, 'Set up webhook').click();
      const set = form(page, 'Set up the webhook');
      await set.getByLabel('URL').fill('ftp://hooks.example.com/entries');
      await button(set, 'Save webhook').click();
      await set.getByRole('alert').getByText('Validation failed').waitFor(SHOWN);
      await set.getByRole('alert').getByText('url must be an absolute http or https URL').waitFor(SHOWN);

      await set.getByLabel('URL').fill(receiver.url);
      await button(set, 'Save webhook').click();
      const saved = page.getByRole('status').filter({ hasText: 'Webhook saved.' });
      await saved.getByText('shown in full this once').waitFor(SHOWN);
      expect(await saved.locator('.secret').textContent()).toMatch(/^whsec_/);
      await page.getByRole('definition').getByText(receiver.url).waitFor(SHOWN);

      await placeCall(c.t, setup);
      const delivered = page.getByRole('cell', { name: 'delivered' });
      for (let i = 0; i < 60 && (await delivered.count()) === 0; i++) {
        await button(page, 'Refresh deliveries').click();
        await page.waitForTimeout(250);
      }
      await delivered.waitFor(SHOWN);
      await page.getByRole('button', { name: /^Attempts call\.ended / }).click();
      const attempts = page.getByRole('region', { name: 'Attempts of the delivery' });
      await attempts.getByRole('cell', { name: 'failed' }).waitFor(SHOWN);
      expect(await attempts.getByRole('cell', { name: '500', exact: true }).count()).toBe(1);
      expect(await attempts.getByRole('cell', { name: '200', exact: true }).count()).toBe(1);
      await screenshots(page, 'webhooks');

      await button(page, 'Change webhook').click();
      const change = form(page, 'Change the webhook');
      await change.getByLabel('Deliveries on').uncheck();
      await button(change, 'Save webhook').click();
      await page.getByRole('definition').getByText('Off', { exact: true }).waitFor(SHOWN);

      await button(page, 'Remove webhook').click();
      await confirm(page, 'remove');
      await page.getByText('No webhook is set').waitFor(SHOWN);
      expect(c.foreignRequests).toEqual([]);
    } finally {
      await receiver.close();
    }
  });
});
