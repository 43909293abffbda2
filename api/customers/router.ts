/** Customer routes (spec 4.9, 4.10; decisions.md section 2: add, bulk add, update) and a campaign's customer list. */
import { Router } from 'express';
import type { CustomerService } from '../../application/customers/customer-service';
import { contextOf, paramOf, requireScope } from '../http/auth';
import { validationFailed } from '../http/errors';
import { QueryReader } from '../http/query';
import { validate } from '../http/validation';
import { AddCustomerBody, BulkAddCustomersBody, followUpErrors, UpdateCustomerBody } from './schemas';

export function customersRouter(service: CustomerService): Router {
  const router = Router();
  const write = requireScope('customers:write');
  const read = requireScope('campaigns:read');

  router.post('/customers/add/bulk', write, async (req, res) => {
    const body = validate(BulkAddCustomersBody, req.body);
    checkFollowUp(body);
    const { status, body: answer } = await service.addBulk(contextOf(res), body);
    res.status(status).json(answer);
  });
  router.post('/customers/add', write, async (req, res) => {
    const body = validate(AddCustomerBody, req.body);
    checkFollowUp(body);
    res.status(201).json(await service.add(contextOf(res), body));
  });
  router.put('/customers/update', write, async (req, res) => {
    const body = validate(UpdateCustomerBody, req.body);
    if (Object.keys(body.data).length === 0) throw validationFailed(['data must have at least one field']);
    const data = await service.update(contextOf(res), body);
    res.json({ success: true, message: 'Customer updated successfully', data });
  });
  router.get('/campaigns/:id/customers', read, async (req, res) => {
    const q = new QueryReader(req);
    const query = { page: q.int('page', 1, 1, 1_000_000), limit: q.int('limit', 10, 1, 100) };
    q.done();
    res.json({ success: true, ...(await service.list(contextOf(res), paramOf(req, 'id'), query)) });
  });
  return router;
}

function checkFollowUp(body: Parameters<typeof followUpErrors>[0]): void {
  const errors = followUpErrors(body);
  if (errors.length > 0) throw validationFailed(errors);
}
