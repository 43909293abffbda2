/** Customer routes (spec 4.9, 4.10; decisions.md section 2: add, bulk add, update) and a campaign's customer list. */
import type { CustomerService } from '../../application/customers/customer-service';
import { contextOf, paramOf } from '../http/auth';
import { validationFailed } from '../http/errors';
import { QueryReader } from '../http/query';
import { route, type RouteSpec } from '../http/route';
import { AddCustomerBody, BulkAddCustomersBody, UpdateCustomerBody } from './schemas';

const WRITE = ['customers:write'];
const READ = ['campaigns:read'];

export function customerRoutes(service: CustomerService): RouteSpec[] {
  return [
    route({
      method: 'post',
      path: '/customers/add/bulk',
      operationId: 'addCustomersInBulk',
      summary: 'Add up to 10,000 customers to a campaign (201 all, 207 some, 400 none)',
      scopes: WRITE,
      body: BulkAddCustomersBody,
      errors: [404],
      success: {
        status: 201,
        description: 'Every record added (207 when some were: `results` and `errors` say which)',
        also: [{ status: 207, description: 'Some records were added: `results` and `errors` say which' }],
      },
      idempotent: true,
      handler: async (_req, res, body) => {
        const { status, body: answer } = await service.addBulk(contextOf(res), body);
        res.status(status).json(answer);
      },
    }),
    route({
      method: 'post',
      path: '/customers/add',
      operationId: 'addCustomer',
      summary: 'Add one customer to a campaign',
      scopes: WRITE,
      body: AddCustomerBody,
      errors: [404, 409],
      success: { status: 201, description: 'The customer added (and the call or workflow it started)' },
      idempotent: true,
      handler: async (_req, res, body) => {
        res.status(201).json(await service.add(contextOf(res), body));
      },
    }),
    route({
      method: 'put',
      path: '/customers/update',
      operationId: 'updateCustomer',
      summary: "Change fields of a customer's record",
      scopes: WRITE,
      body: UpdateCustomerBody,
      errors: [404],
      handler: async (_req, res, body) => {
        if (Object.keys(body.data).length === 0) throw validationFailed(['data must have at least one field']);
        const data = await service.update(contextOf(res), body);
        res.json({ success: true, message: 'Customer updated successfully', data });
      },
    }),
    route({
      method: 'get',
      path: '/campaigns/{id}/customers',
      operationId: 'listCampaignCustomers',
      summary: "List a campaign's customers",
      scopes: READ,
      query: ['page', 'limit'],
      errors: [400, 404],
      handler: async (req, res) => {
        const q = new QueryReader(req);
        const query = q.paging();
        q.done();
        res.json({ success: true, ...(await service.list(contextOf(res), paramOf(req, 'id'), query)) });
      },
    }),
  ];
}
