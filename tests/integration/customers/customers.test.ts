import { CommandHandler } from '../../../application/command-handler';
import { customerDecider, customerStreamId, type CustomerCommand } from '../../../domain/customers/customer';
import { DomainError } from '../../../domain/shared/errors';
import { startTestService, type TestService } from '../../support/test-service';

type Org = { id: string; token: string };

const loan = (loan_id: string, extra: Record<string, unknown> = {}) => ({
  loan_id,
  first_name: 'Asha',
  last_name: 'Patil',
  phone_number: '+919812345678',
  loan_amount: 250000,
  emi_amount: 8500,
  loan_period: 36,
  current_emi: 4,
  emi_due_date: '2026-04-05',
  payment_status: 'pending',
  ...extra,
});
const lead = (extra: Record<string, unknown> = {}) => ({
  first_name: 'Ravi',
  last_name: 'Kumar',
  phone_number: '9812345678',
  lead_date: '2026-01-31',
  ...extra,
});
/** With no voice-enabled number of the organization to call from, no call is placed (decisions.md section 6). */
const NO_NUMBERS = 'No active numbers';

describe('customers API', () => {
  let t: TestService;
  let org: Org;
  let leads: Org;
  beforeAll(async () => {
    t = await startTestService();
    org = await t.newOrganization('collection');
    leads = await t.newOrganization('lead_generation');
  });
  afterAll(() => t.stop());

  const call = (method: string, path: string, body?: unknown, token = org.token) =>
    t.request(method, `/api/v1${path}`, { token, body });
  const newCampaign = async (owner: Org = org, campaignType = 'emi') => {
    const reply = await call('POST', '/campaigns/create', { name: 'C', campaignType }, owner.token);
    return reply.body.data.id as string;
  };

  describe('add one', () => {
    it('adds a Debt Collection record, keeps fields the spec does not name, and reads it back', async () => {
      const campaignId = await newCampaign();
      const reply = await call('POST', '/customers/add', {
        campaignId,
        data: loan('L-1', { language: 'Hindi', branch: 'Pune' }),
      });
      expect(reply.status).toBe(201);
      expect(reply.body).toEqual({
        success: true,
        message: 'Customer added successfully',
        data: { id: 'L-1', campaignId },
      });
      const list = await call('GET', `/campaigns/${campaignId}/customers`);
      expect(list.body).toEqual({
        success: true,
        data: [
          {
            id: 'L-1',
            campaignId,
            data: loan('L-1', { language: 'Hindi', branch: 'Pune' }),
            createdAt: expect.any(String),
            updatedAt: expect.any(String),
          },
        ],
        pagination: { page: 1, per_page: 10, total: 1, total_pages: 1, has_next: false, has_prev: false },
      });
      const doc = await t.service.reads
        .collection<Record<string, unknown>>({ name: 'customers', fields: {} })
        .then((c) => c.get(`${campaignId}/L-1`));
      expect(doc).toMatchObject({
        organizationId: org.id,
        campaignId,
        customerId: 'L-1',
        payment_status: 'pending',
        language: 'hi',
        phone_number: '+919812345678',
      });
    });

    it('refuses invalid records, naming the field with the data. prefix', async () => {
      const campaignId = await newCampaign();
      const { loan_id: _id, ...withoutLoanId } = loan('x');
      const cases: [unknown, string][] = [
        [{ campaignId, data: withoutLoanId }, 'data.loan_id is required'],
        [{ campaignId, data: loan('L', { first_name: undefined }) }, 'data.first_name is required'],
        [{ campaignId }, 'data is required'],
        [{ data: loan('L') }, 'campaignId is required'],
        [{ campaignId, data: 'L' }, 'data must be an object'],
        [
          { campaignId, data: loan('L', { phone_number: '12345' }) },
          'data.phone_number must be 7 to 15 digits with an optional leading +',
        ],
        [
          { campaignId, data: loan('L', { emi_due_date: '2026-02-29' }) },
          'data.emi_due_date must be a real date in YYYY-MM-DD format',
        ],
        [{ campaignId, data: loan('L', { loan_amount: -5 }) }, 'data.loan_amount must be >= 0'],
        [
          { campaignId, data: loan('L', { current_emi: 37 }) },
          'data.current_emi must not be greater than data.loan_period',
        ],
        [
          { campaignId, data: loan('L', { payment_status: 'late' }) },
          'data.payment_status must be one of bounced, pending, partial, paid, received',
        ],
        [{ campaignId, data: loan('L'), initiateCall: 'yes' }, 'initiateCall must be a boolean'],
      ];
      for (const [body, message] of cases) {
        const reply = await call('POST', '/customers/add', body);
        expect({ body, status: reply.status, message: reply.body.message }).toEqual({
          body,
          status: 400,
          message: 'Validation failed',
        });
        expect({ body, errors: reply.body.errors }).toEqual({ body, errors: expect.arrayContaining([message]) });
      }
      expect((await call('GET', `/campaigns/${campaignId}/customers`)).body.data).toEqual([]);
    });

    it('answers 404 for unknown or deleted campaigns and 403 for another organization’s', async () => {
      const unknown = await call('POST', '/customers/add', { campaignId: 'no-such-campaign', data: loan('L') });
      expect(unknown).toMatchObject({
        status: 404,
        body: { success: false, error: 'NotFound', message: 'Campaign not found' },
      });
      const deleted = await newCampaign();
      await call('DELETE', `/campaigns/${deleted}`);
      expect((await call('POST', '/customers/add', { campaignId: deleted, data: loan('L') })).body.message).toBe(
        'Campaign not found',
      );
      const other = await t.newOrganization('collection');
      const foreign = await newCampaign(other);
      for (const [path, body] of [
        ['/customers/add', { campaignId: foreign, data: loan('L') }],
        ['/customers/add/bulk', { campaignId: foreign, records: [loan('L')] }],
      ] as const) {
        const reply = await call('POST', path, body);
        expect(reply).toMatchObject({
          status: 403,
          body: {
            success: false,
            error: 'Forbidden',
            message: 'Access denied - Campaign belongs to another organization',
          },
        });
      }
      expect(
        (
          await call('PUT', '/customers/update', {
            campaignId: foreign,
            loan_id: 'L',
            data: { payment_status: 'paid' },
          })
        ).status,
      ).toBe(403);
      expect((await call('GET', `/campaigns/${foreign}/customers`)).status).toBe(403);
      expect((await call('POST', '/customers/add/bulk', { campaignId: 'nope', records: [loan('L')] })).status).toBe(
        404,
      );
    });

    it('answers 409 for a loan_id already in the campaign; the same loan_id may be in another campaign', async () => {
      const campaignId = await newCampaign();
      expect((await call('POST', '/customers/add', { campaignId, data: loan('DUP') })).status).toBe(201);
      const again = await call('POST', '/customers/add', { campaignId, data: loan('DUP', { first_name: 'Other' }) });
      expect(again).toMatchObject({
        status: 409,
        body: {
          success: false,
          error: 'Conflict',
          message: 'Customer with this loan_id already exists in this campaign',
        },
      });
      expect(
        (await call('POST', '/customers/add', { campaignId: await newCampaign(), data: loan('DUP') })).status,
      ).toBe(201);
    });

    it('follows the Lead Generation record for lead_generation organizations, generating lead_id when absent', async () => {
      const campaignId = await newCampaign(leads, 'lead');
      const generated = await call('POST', '/customers/add', { campaignId, data: lead() }, leads.token);
      expect(generated.status).toBe(201);
      expect(generated.body.data.id).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
      const given = await call(
        'POST',
        '/customers/add',
        { campaignId, data: lead({ lead_id: 'LEAD-7' }) },
        leads.token,
      );
      expect(given.body.data).toEqual({ id: 'LEAD-7', campaignId });
      const again = await call(
        'POST',
        '/customers/add',
        { campaignId, data: lead({ lead_id: 'LEAD-7' }) },
        leads.token,
      );
      expect(again).toMatchObject({
        status: 409,
        body: { message: 'Customer with this lead_id already exists in this campaign' },
      });
      const invalid = await call(
        'POST',
        '/customers/add',
        { campaignId, data: { first_name: 'A', last_name: 'B', phone_number: '9812345678' } },
        leads.token,
      );
      expect(invalid.body).toEqual({
        success: false,
        message: 'Validation failed',
        errors: ['data.lead_date is required'],
      });
      const list = await call('GET', `/campaigns/${campaignId}/customers`, undefined, leads.token);
      expect(list.body.data.find((c: { id: string }) => c.id === generated.body.data.id).data.lead_id).toBe(
        generated.body.data.id,
      );
    });

    it('checks initiateCall, callConfig and useWorkflow, and says honestly that no call or workflow was started', async () => {
      const campaignId = await newCampaign();
      const agentId = (await call('POST', '/agents', { name: 'Priya' })).body.data.id;
      const dispositionId = (await call('POST', '/dispositions', { name: 'Promise to pay' })).body.data.id;
      const other = await t.newOrganization('collection');
      const foreignAgent = (await call('POST', '/agents', { name: 'Theirs' }, other.token)).body.data.id;

      const both = await call('POST', '/customers/add', {
        campaignId,
        data: loan('F1'),
        initiateCall: true,
        useWorkflow: true,
        callConfig: { agentId, dispositionId },
      });
      expect(both.body).toEqual({
        success: false,
        message: 'Validation failed',
        errors: ['initiateCall and useWorkflow cannot both be true'],
      });
      const noConfig = await call('POST', '/customers/add', { campaignId, data: loan('F1'), initiateCall: true });
      expect(noConfig.body).toEqual({
        success: false,
        message: 'Validation failed',
        errors: ['callConfig is required when initiateCall is true'],
      });
      const partial = await call('POST', '/customers/add', {
        campaignId,
        data: loan('F1'),
        initiateCall: true,
        callConfig: { agentId },
      });
      expect(partial.body.errors).toEqual(['callConfig.dispositionId is required']);
      expect(
        (
          await call('POST', '/customers/add', {
            campaignId,
            data: loan('F1'),
            initiateCall: true,
            callConfig: { agentId: 5, dispositionId },
          })
        ).body.errors,
      ).toEqual(['callConfig.agentId must be a string']);

      const cases: [string, { agentId: string; dispositionId: string }, string][] = [
        ['F2', { agentId: 'no-agent', dispositionId }, 'Agent not found'],
        ['F3', { agentId: foreignAgent, dispositionId }, 'Agent not found'],
        ['F4', { agentId, dispositionId: 'no-disposition' }, 'Disposition not found'],
        ['F5', { agentId, dispositionId }, NO_NUMBERS],
      ];
      for (const [id, callConfig, callError] of cases) {
        const reply = await call('POST', '/customers/add', {
          campaignId,
          data: loan(id),
          initiateCall: true,
          callConfig,
        });
        expect(reply.status).toBe(201);
        expect(reply.body).toEqual({
          success: true,
          message: 'Customer added successfully',
          data: { id, campaignId },
          callInitiated: false,
          callError,
        });
      }
      const workflow = await call('POST', '/customers/add', { campaignId, data: loan('F6'), useWorkflow: true });
      expect(workflow.body).toEqual({
        success: true,
        message: 'Customer added successfully',
        data: { id: 'F6', campaignId },
        workflowTriggered: false,
      });
      const plain = await call('POST', '/customers/add', {
        campaignId,
        data: loan('F7'),
        initiateCall: false,
        useWorkflow: false,
        callConfig: { agentId, dispositionId },
      });
      expect(plain.body).toEqual({
        success: true,
        message: 'Customer added successfully',
        data: { id: 'F7', campaignId },
      });
    });

    it('needs the customers:write scope', async () => {
      const campaignId = await newCampaign();
      const reader = await t.tokenFor(org.id, { scopes: ['campaigns:read'] });
      for (const [method, path, body] of [
        ['POST', '/customers/add', { campaignId, data: loan('S') }],
        ['POST', '/customers/add/bulk', { campaignId, records: [loan('S')] }],
        ['PUT', '/customers/update', { campaignId, loan_id: 'S', data: { payment_status: 'paid' } }],
      ] as const) {
        expect((await call(method, path, body, reader)).status).toBe(403);
      }
      const writer = await t.tokenFor(org.id, { scopes: ['customers:write'] });
      expect((await call('POST', '/customers/add', { campaignId, data: loan('S') }, writer)).status).toBe(201);
      expect(
        (await call('POST', '/customers/add', { campaignId, data: loan('S2') }, null as unknown as string)).status,
      ).toBe(401);
    });
  });

  describe('bulk add', () => {
    it('adds every valid record: 201, results, no invalidRecords or callResults', async () => {
      const campaignId = await newCampaign();
      const reply = await call('POST', '/customers/add/bulk', {
        campaignId,
        records: [loan('B1'), loan('B2'), loan('B3', { region: 'west' })],
      });
      expect(reply.status).toBe(201);
      expect(reply.body).toEqual({
        success: true,
        message: 'All 3 customers added successfully',
        results: { total: 3, valid: 3, invalid: 0, successful: 3, failed: 0, batchesProcessed: 0 },
        errors: [],
      });
      expect((await call('GET', `/campaigns/${campaignId}/customers?limit=2`)).body.pagination).toMatchObject({
        total: 3,
        total_pages: 2,
      });
    });

    it('refuses a record larger than 64 KiB as JSON (it is recorded whole in one event), adds the others', async () => {
      const campaignId = await newCampaign();
      const records = [loan('SMALL'), loan('HUGE', { notes: 'x'.repeat(70_000) })];
      const reply = await call('POST', '/customers/add/bulk', { campaignId, records });
      expect(reply.status).toBe(207);
      expect(reply.body.results).toMatchObject({ total: 2, valid: 1, invalid: 1, successful: 1 });
      expect(reply.body.invalidRecords).toEqual([
        { index: 1, id: 'HUGE', errors: ['record must be at most 65536 bytes as JSON'] },
      ]);
      const one = await call('POST', '/customers/add', {
        campaignId,
        data: loan('HUGE', { notes: 'x'.repeat(70_000) }),
      });
      expect(one.status).toBe(400);
      expect(one.body).toMatchObject({ success: false, message: 'Validation failed' });
      expect(JSON.stringify(one.body)).toContain('data must be at most 65536 bytes as JSON');
    });

    it('reports a mixed request: invalid records by index, duplicates in the request and keys already in the campaign (207)', async () => {
      const campaignId = await newCampaign();
      await call('POST', '/customers/add', { campaignId, data: loan('EXISTING') });
      const records = [
        loan('M1'),
        loan('M2', { phone_number: 'abc' }),
        loan('M1', { first_name: 'Second' }),
        { first_name: 'No id' },
        loan('EXISTING'),
        'not a record',
        loan('M3'),
      ];
      const reply = await call('POST', '/customers/add/bulk', { campaignId, records });
      expect(reply.status).toBe(207);
      expect(reply.body).toEqual({
        success: false,
        message: '2 of 7 customers added',
        results: { total: 7, valid: 4, invalid: 3, successful: 2, failed: 2, batchesProcessed: 0 },
        errors: [
          { id: 'M1', error: 'Duplicate loan_id in this request', reason: 'duplicate_in_request' },
          {
            id: 'EXISTING',
            error: 'Customer with this loan_id already exists in this campaign',
            reason: 'already_exists',
          },
        ],
        invalidRecords: [
          { index: 1, id: 'M2', errors: ['phone_number must be 7 to 15 digits with an optional leading +'] },
          {
            index: 3,
            id: null,
            errors: [
              'loan_id is required',
              'last_name is required',
              'phone_number is required',
              'loan_amount is required',
              'emi_amount is required',
              'loan_period is required',
              'current_emi is required',
              'emi_due_date is required',
              'payment_status is required',
            ],
          },
          { index: 5, id: null, errors: ['record must be an object'] },
        ],
      });
      const list = await call('GET', `/campaigns/${campaignId}/customers`);
      const byId = Object.fromEntries(
        list.body.data.map((c: { id: string; data: { first_name: string } }) => [c.id, c.data.first_name]),
      );
      expect(byId).toEqual({ EXISTING: 'Asha', M1: 'Asha', M3: 'Asha' });
    });

    it('counts a duplicate of an existing customer as failed and an invalid record as invalid only (the counters partition the records)', async () => {
      const campaignId = await newCampaign();
      await call('POST', '/customers/add', { campaignId, data: loan('OLD') });
      const reply = await call('POST', '/customers/add/bulk', {
        campaignId,
        records: [loan('N1'), loan('N2'), loan('OLD'), loan('N3', { phone_number: 'abc' }), loan('N4')],
      });
      expect(reply.status).toBe(207);
      const { results } = reply.body;
      expect(results).toEqual({ total: 5, valid: 4, invalid: 1, successful: 3, failed: 1, batchesProcessed: 0 });
      expect(results.total).toBe(results.valid + results.invalid);
      expect(results.valid).toBe(results.successful + results.failed);
      expect(reply.body.errors.map((e: { id: string }) => e.id)).toEqual(['OLD']);
      expect(reply.body.invalidRecords.map((r: { index: number }) => r.index)).toEqual([3]);
      expect(reply.body.success).toBe(false);
    });

    it('answers 400 when no record is valid, or when none could be added', async () => {
      const campaignId = await newCampaign();
      const invalid = await call('POST', '/customers/add/bulk', {
        campaignId,
        records: [{ loan_id: 'X' }, loan('Y', { loan_amount: 'many' })],
      });
      expect(invalid.status).toBe(400);
      expect(invalid.body).toMatchObject({
        success: false,
        message: 'No valid records to add',
        results: { total: 2, valid: 0, invalid: 2, successful: 0, failed: 0, batchesProcessed: 0 },
        errors: [],
      });
      expect(invalid.body.invalidRecords.map((r: { index: number; id: string }) => [r.index, r.id])).toEqual([
        [0, 'X'],
        [1, 'Y'],
      ]);
      await call('POST', '/customers/add', { campaignId, data: loan('Z') });
      const existing = await call('POST', '/customers/add/bulk', { campaignId, records: [loan('Z')] });
      expect(existing.status).toBe(400);
      expect(existing.body).toEqual({
        success: false,
        message: 'No customers were added',
        results: { total: 1, valid: 1, invalid: 0, successful: 0, failed: 1, batchesProcessed: 0 },
        errors: [
          { id: 'Z', error: 'Customer with this loan_id already exists in this campaign', reason: 'already_exists' },
        ],
      });
    });

    it('refuses more than 10,000 records, an empty list and bad follow-up options as validation errors', async () => {
      const campaignId = await newCampaign();
      const tooMany = await call('POST', '/customers/add/bulk', {
        campaignId,
        records: Array.from({ length: 10_001 }, (_, i) => loan(`T${i}`)),
      });
      expect(tooMany.status).toBe(400);
      expect(tooMany.body).toEqual({
        success: false,
        message: 'Validation failed',
        errors: ['records must have at most 10000 items'],
      });
      expect((await call('POST', '/customers/add/bulk', { campaignId, records: [] })).body.errors).toEqual([
        'records must be a non-empty array',
      ]);
      expect((await call('POST', '/customers/add/bulk', { campaignId })).body.errors).toEqual(['records is required']);
      expect(
        (await call('POST', '/customers/add/bulk', { campaignId, records: [loan('A')], initiateCall: true })).body
          .errors,
      ).toEqual(['callConfig is required when initiateCall is true']);
      expect(
        (
          await call('POST', '/customers/add/bulk', {
            campaignId,
            records: [loan('A')],
            initiateCall: true,
            useWorkflow: true,
            callConfig: { agentId: 'a', dispositionId: 'd' },
          })
        ).body.errors,
      ).toEqual(['initiateCall and useWorkflow cannot both be true']);
      expect((await call('GET', `/campaigns/${campaignId}/customers`)).body.pagination.total).toBe(0);
    });

    it('reports call results in batches of 500 when initiateCall is true, and workflowTriggered for useWorkflow', async () => {
      const campaignId = await newCampaign();
      const agentId = (await call('POST', '/agents', { name: 'Bulk agent' })).body.data.id;
      const dispositionId = (await call('POST', '/dispositions', { name: `Outcome ${Date.now()}` })).body.data.id;
      const records = Array.from({ length: 1200 }, (_, i) => loan(`C${i}`));
      const reply = await call('POST', '/customers/add/bulk', {
        campaignId,
        records,
        initiateCall: true,
        callConfig: { agentId, dispositionId },
      });
      expect(reply.status).toBe(201);
      expect(reply.body.results).toEqual({
        total: 1200,
        valid: 1200,
        invalid: 0,
        successful: 1200,
        failed: 0,
        batchesProcessed: 3,
      });
      expect(reply.body.callResults).toEqual({
        totalRequested: 1200,
        initiated: 0,
        failed: 1200,
        errors: [
          { batch: 1, error: NO_NUMBERS, reason: 'no_active_numbers', affectedCustomers: 500 },
          { batch: 2, error: NO_NUMBERS, reason: 'no_active_numbers', affectedCustomers: 500 },
          { batch: 3, error: NO_NUMBERS, reason: 'no_active_numbers', affectedCustomers: 200 },
        ],
      });
      // With a voice-enabled number of the organization, every call is queued.
      const available = (await call('GET', '/numbers/search?limit=1')).body.data[0].number;
      expect(
        (await call('POST', '/numbers/buyNumbers', [{ number: available, provider: 'builtin' }])).body.success,
      ).toBe(true);
      const withNumber = await call('POST', '/customers/add/bulk', {
        campaignId,
        records: Array.from({ length: 600 }, (_, i) => loan(`N${i}`)),
        initiateCall: true,
        callConfig: { agentId, dispositionId },
      });
      expect(withNumber.body.callResults).toEqual({ totalRequested: 600, initiated: 600, failed: 0, errors: [] });
      expect(withNumber.body.results.batchesProcessed).toBe(2);
      const unknownAgent = await call('POST', '/customers/add/bulk', {
        campaignId,
        records: [loan('U1')],
        initiateCall: true,
        callConfig: { agentId: 'nobody', dispositionId },
      });
      expect(unknownAgent.body.callResults).toEqual({
        totalRequested: 1,
        initiated: 0,
        failed: 1,
        errors: [{ batch: 1, error: 'Agent not found', reason: 'agent_not_found', affectedCustomers: 1 }],
      });
      const workflow = await call('POST', '/customers/add/bulk', {
        campaignId,
        records: [loan('W1')],
        useWorkflow: true,
      });
      expect(workflow.body).toMatchObject({
        success: true,
        workflowTriggered: false,
        results: { batchesProcessed: 0 },
      });
      expect(workflow.body.callResults).toBeUndefined();
    });

    it('adds 10,000 records in one request', async () => {
      const campaignId = await newCampaign();
      const records = Array.from({ length: 10_000 }, (_, i) => loan(`K${i}`, { current_emi: i % 36 }));
      const reply = await call('POST', '/customers/add/bulk', { campaignId, records });
      expect(reply.status).toBe(201);
      expect(reply.body.results).toEqual({
        total: 10_000,
        valid: 10_000,
        invalid: 0,
        successful: 10_000,
        failed: 0,
        batchesProcessed: 0,
      });
      expect((await call('GET', `/campaigns/${campaignId}/customers?limit=1`)).body.pagination.total).toBe(10_000);
    });
  });

  describe('update', () => {
    it('changes part of a record; the merged record must stay valid; null removes an optional field', async () => {
      const campaignId = await newCampaign();
      await call('POST', '/customers/add', { campaignId, data: loan('U1', { language: 'tamil' }) });
      const reply = await call('PUT', '/customers/update', {
        campaignId,
        loan_id: 'U1',
        data: { payment_status: 'paid', language: null, note: 'called back' },
      });
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({
        success: true,
        message: 'Customer updated successfully',
        data: {
          id: 'U1',
          campaignId,
          data: { ...loan('U1'), payment_status: 'paid', note: 'called back' },
          createdAt: expect.any(String),
          updatedAt: expect.any(String),
        },
      });
      const invalid = await call('PUT', '/customers/update', { campaignId, loan_id: 'U1', data: { current_emi: 40 } });
      expect(invalid.body).toEqual({
        success: false,
        message: 'Validation failed',
        errors: ['data.current_emi must not be greater than data.loan_period'],
      });
      expect(
        (await call('PUT', '/customers/update', { campaignId, loan_id: 'U1', data: { loan_id: 'U2' } })).body.errors,
      ).toEqual(['data.loan_id cannot be changed']);
      expect(
        (await call('PUT', '/customers/update', { campaignId, data: { payment_status: 'paid' } })).body.errors,
      ).toEqual(['loan_id is required']);
      expect((await call('PUT', '/customers/update', { campaignId, loan_id: 'U1', data: {} })).body.errors).toEqual([
        'data must have at least one field',
      ]);
      expect(
        await call('PUT', '/customers/update', { campaignId, loan_id: 'nobody', data: { payment_status: 'paid' } }),
      ).toMatchObject({ status: 404, body: { success: false, error: 'NotFound', message: 'Customer not found' } });
      expect(
        (
          await call('PUT', '/customers/update', {
            campaignId: 'nope',
            loan_id: 'U1',
            data: { payment_status: 'paid' },
          })
        ).body.message,
      ).toBe('Campaign not found');
      const history = await t.service.events.readStream(`customer-${campaignId}-U1`);
      expect(history.map((e) => e.type)).toEqual(['CustomerAdded', 'CustomerUpdated']);
    });

    it('finds lead customers by lead_id', async () => {
      const campaignId = await newCampaign(leads, 'lead');
      await call('POST', '/customers/add', { campaignId, data: lead({ lead_id: 'LD1' }) }, leads.token);
      const reply = await call(
        'PUT',
        '/customers/update',
        { campaignId, lead_id: 'LD1', data: { lead_date: '2026-02-01' } },
        leads.token,
      );
      expect(reply.body.data.data.lead_date).toBe('2026-02-01');
      expect(
        (
          await call(
            'PUT',
            '/customers/update',
            { campaignId, loan_id: 'LD1', data: { lead_date: '2026-02-01' } },
            leads.token,
          )
        ).body.errors,
      ).toEqual(['lead_id is required']);
    });
  });
});

describe('customers on the SQLite stores', () => {
  let t: TestService;
  let org: Org;
  beforeAll(async () => {
    t = await startTestService({ store: 'sqlite' });
    org = await t.newOrganization('collection');
  });
  afterAll(() => t.stop());

  const call = (method: string, path: string, body?: unknown) =>
    t.request(method, `/api/v1${path}`, { token: org.token, body });

  it('lets exactly one of many parallel adds of the same loan_id succeed; the others get 409', async () => {
    const campaignId = (await call('POST', '/campaigns/create', { name: 'Race', campaignType: 'emi' })).body.data.id;
    const replies = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        call('POST', '/customers/add', { campaignId, data: loan('SAME', { first_name: `Caller ${i}` }) }),
      ),
    );
    const statuses = replies.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(24);
    expect(await t.service.events.readStream(`customer-${campaignId}-SAME`)).toHaveLength(1);
    // Bulk requests racing each other (and a single add) over the same keys: each key is added once.
    const records = Array.from({ length: 200 }, (_, i) => loan(`R${i}`));
    const bulk = await Promise.all([
      call('POST', '/customers/add/bulk', { campaignId, records }),
      call('POST', '/customers/add/bulk', { campaignId, records }),
      call('POST', '/customers/add', { campaignId, data: loan('R7') }),
    ]);
    const added =
      bulk[0]!.body.results.successful + bulk[1]!.body.results.successful + (bulk[2]!.status === 201 ? 1 : 0);
    expect(added).toBe(200);
    expect((await call('GET', `/campaigns/${campaignId}/customers`)).body.pagination.total).toBe(201);
  });

  it('keeps keys unique through the event store itself, across replicas that do not share a command handler', async () => {
    const replicas = Array.from({ length: 4 }, () => new CommandHandler(t.service.events));
    const command: CustomerCommand = {
      type: 'AddCustomer',
      campaignId: 'c-replicas',
      customerId: 'K',
      organizationId: org.id,
      organizationType: 'collection',
      record: loan('K'),
      at: new Date().toISOString(),
    };
    const context = { organizationId: org.id, actor: 'test', requestId: 'r' };
    const outcomes = await Promise.allSettled(
      replicas.map((h) => h.handle(customerDecider, customerStreamId('c-replicas', 'K'), command, context)),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const refusals = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason] : []));
    expect(refusals.map((e) => e instanceof DomainError && e.kind === 'conflict' && e.message)).toEqual(
      Array(3).fill('Customer with this loan_id already exists in this campaign'),
    );
    expect(await t.service.events.readStream(customerStreamId('c-replicas', 'K'))).toHaveLength(1);
  });

  it('adds 10,000 records in one request', async () => {
    const campaignId = (await call('POST', '/campaigns/create', { name: 'Big', campaignType: 'emi' })).body.data.id;
    const records = Array.from({ length: 10_000 }, (_, i) => loan(`K${i}`));
    const reply = await call('POST', '/customers/add/bulk', { campaignId, records });
    expect(reply.status).toBe(201);
    expect(reply.body.results.successful).toBe(10_000);
    expect((await call('GET', `/campaigns/${campaignId}/customers?limit=1`)).body.pagination.total).toBe(10_000);
  });
});
