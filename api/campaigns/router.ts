/** Campaign routes (spec 4.14, decisions.md section 2). */
import { Router } from 'express';
import type { CampaignService } from '../../application/campaigns/campaign-service';
import { contextOf, paramOf, requireScope } from '../http/auth';
import { validationFailed } from '../http/errors';
import { QueryReader } from '../http/query';
import { validate } from '../http/validation';
import { CreateCampaignBody, UpdateCampaignBody } from './schemas';

export function campaignsRouter(service: CampaignService): Router {
  const router = Router();
  const read = requireScope('campaigns:read');
  const write = requireScope('campaigns:write');

  router.post('/campaigns/create', write, async (req, res) => {
    const body = validate(CreateCampaignBody, req.body);
    checkDates(body.startDate, body.endDate);
    const { customers, ...data } = await service.create(contextOf(res), body);
    res
      .status(201)
      .json({ success: true, message: 'Campaign created successfully', data, ...(customers && { customers }) });
  });
  router.get('/campaigns', read, async (req, res) => {
    const q = new QueryReader(req);
    const query = {
      page: q.int('page', 1, 1, 1_000_000),
      limit: q.int('limit', 10, 1, 100),
      status: q.oneOf('status', ['active', 'paused'] as const),
      search: q.string('search'),
    };
    q.done();
    res.json({ success: true, ...(await service.list(contextOf(res), query)) });
  });
  router.get('/campaigns/:id', read, async (req, res) => {
    res.json({ success: true, data: await service.get(contextOf(res), paramOf(req, 'id')) });
  });
  router.put('/campaigns/update/:id', write, async (req, res) => {
    const body = validate(UpdateCampaignBody, req.body);
    checkDates(body.startDate, body.endDate);
    const { campaign, updatedFields, customers } = await service.update(contextOf(res), paramOf(req, 'id'), body);
    res.json({
      success: true,
      message: 'Campaign updated successfully',
      updatedFields,
      data: campaign,
      ...(customers && { customers }),
    });
  });
  router.patch('/campaigns/pause/:id', write, async (req, res) => {
    const data = await service.pause(contextOf(res), paramOf(req, 'id'));
    res.json({ success: true, message: 'Campaign paused successfully', data });
  });
  router.patch('/campaigns/resume/:id', write, async (req, res) => {
    const data = await service.resume(contextOf(res), paramOf(req, 'id'));
    res.json({ success: true, message: 'Campaign resumed successfully', data });
  });
  router.delete('/campaigns/:id', write, async (req, res) => {
    const id = paramOf(req, 'id');
    await service.delete(contextOf(res), id);
    res.json({ success: true, data: { id }, message: 'Campaign deleted successfully' });
  });
  return router;
}

function checkDates(start: string | null | undefined, end: string | null | undefined): void {
  if (start && end && end < start) throw validationFailed(['endDate must not be before startDate']);
}
