/** Campaign routes (spec 4.14, decisions.md section 2). */
import type { CampaignService } from '../../application/campaigns/campaign-service';
import { contextOf, paramOf } from '../http/auth';
import { validationFailed } from '../http/errors';
import { QueryReader } from '../http/query';
import { getByIdRoute } from '../http/resource-routes';
import { route, type RouteSpec } from '../http/route';
import { CreateCampaignBody, UpdateCampaignBody } from './schemas';

const READ = ['campaigns:read'];
const WRITE = ['campaigns:write'];

export function campaignRoutes(service: CampaignService): RouteSpec[] {
  return [
    route({
      method: 'post',
      path: '/campaigns/create',
      operationId: 'createCampaign',
      summary: 'Create a campaign',
      scopes: WRITE,
      body: CreateCampaignBody,
      success: { status: 201, description: 'The campaign (and, with `jsonData`, what adding its customers answered)' },
      idempotent: true,
      handler: async (_req, res, body) => {
        checkDates(body.startDate, body.endDate);
        const { customers, ...data } = await service.create(contextOf(res), body);
        res
          .status(201)
          .json({ success: true, message: 'Campaign created successfully', data, ...(customers && { customers }) });
      },
    }),
    route({
      method: 'get',
      path: '/campaigns',
      operationId: 'listCampaigns',
      summary: 'List campaigns',
      scopes: READ,
      query: ['page', 'limit', 'status', 'search'],
      errors: [400],
      handler: async (req, res) => {
        const q = new QueryReader(req);
        const query = {
          ...q.paging(),
          status: q.oneOf('status', ['active', 'paused'] as const),
          search: q.string('search'),
        };
        q.done();
        res.json({ success: true, ...(await service.list(contextOf(res), query)) });
      },
    }),
    getByIdRoute({
      path: '/campaigns/{id}',
      operationId: 'getCampaign',
      summary: 'Get a campaign',
      scopes: READ,
      get: (ctx, id) => service.detail(ctx, id),
    }),
    route({
      method: 'put',
      path: '/campaigns/update/{id}',
      operationId: 'updateCampaign',
      summary: 'Update a campaign',
      scopes: WRITE,
      body: UpdateCampaignBody,
      errors: [404],
      handler: async (req, res, body) => {
        checkDates(body.startDate, body.endDate);
        const { campaign, updatedFields, customers } = await service.update(contextOf(res), paramOf(req, 'id'), body);
        res.json({
          success: true,
          message: 'Campaign updated successfully',
          updatedFields,
          data: campaign,
          ...(customers && { customers }),
        });
      },
    }),
    route({
      method: 'patch',
      path: '/campaigns/pause/{id}',
      operationId: 'pauseCampaign',
      summary: 'Pause a campaign',
      scopes: WRITE,
      errors: [404],
      handler: async (req, res) => {
        const data = await service.pause(contextOf(res), paramOf(req, 'id'));
        res.json({ success: true, message: 'Campaign paused successfully', data });
      },
    }),
    route({
      method: 'patch',
      path: '/campaigns/resume/{id}',
      operationId: 'resumeCampaign',
      summary: 'Resume a campaign',
      scopes: WRITE,
      errors: [404],
      handler: async (req, res) => {
        const data = await service.resume(contextOf(res), paramOf(req, 'id'));
        res.json({ success: true, message: 'Campaign resumed successfully', data });
      },
    }),
    route({
      method: 'delete',
      path: '/campaigns/{id}',
      operationId: 'deleteCampaign',
      summary: 'Delete a campaign (its history is kept)',
      scopes: WRITE,
      errors: [404],
      handler: async (req, res) => {
        const id = paramOf(req, 'id');
        await service.delete(contextOf(res), id);
        res.json({ success: true, data: { id }, message: 'Campaign deleted successfully' });
      },
    }),
  ];
}

function checkDates(start: string | null | undefined, end: string | null | undefined): void {
  if (start && end && end < start) throw validationFailed(['endDate must not be before startDate']);
}
