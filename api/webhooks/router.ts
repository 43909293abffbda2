/**
 * Outbound webhook routes (decisions.md section 2, "ours"). Setting or removing the webhook needs
 * `campaigns:write`; reading the settings needs `campaigns:read` or `campaigns:write`; reading
 * deliveries (which carry log entries) also accepts `logs:read`.
 */
import { Router } from 'express';
import type { WebhookDeliveriesService } from '../../application/webhooks/webhook-deliveries-service';
import type { WebhookSettingsService } from '../../application/webhooks/webhook-settings-service';
import { DELIVERY_STATUSES } from '../../projections/webhooks/webhook-deliveries';
import type { Route } from '../ops/openapi';
import { contextOf, paramOf, requireScope } from '../http/auth';
import { QueryReader } from '../http/query';
import { validate } from '../http/validation';
import { PutWebhookBody } from './schemas';

export function webhooksRouter(settings: WebhookSettingsService, deliveries: WebhookDeliveriesService): Router {
  const router = Router();
  const write = requireScope('campaigns:write');
  const read = requireScope('campaigns:read', 'campaigns:write');
  const readDeliveries = requireScope('campaigns:read', 'campaigns:write', 'logs:read');

  router.put('/webhooks', write, async (req, res) => {
    res.json({
      success: true,
      message: 'Webhook saved',
      data: await settings.configure(contextOf(res), validate(PutWebhookBody, req.body)),
    });
  });
  router.get('/webhooks', read, async (_req, res) => {
    res.json({ success: true, data: await settings.get(contextOf(res)) });
  });
  router.delete('/webhooks', write, async (_req, res) => {
    await settings.remove(contextOf(res));
    res.json({ success: true, message: 'Webhook removed' });
  });
  router.get('/webhooks/deliveries', readDeliveries, async (req, res) => {
    const q = new QueryReader(req);
    const query = {
      page: q.int('page', 1, 1, 1_000_000),
      limit: q.int('limit', 10, 1, 100),
      status: q.oneOf('status', DELIVERY_STATUSES),
    };
    q.done();
    res.json({ success: true, ...(await deliveries.list(contextOf(res), query)) });
  });
  router.get('/webhooks/deliveries/:id', readDeliveries, async (req, res) => {
    res.json({ success: true, data: await deliveries.get(contextOf(res), paramOf(req, 'id')) });
  });
  return router;
}

export const WEBHOOK_ROUTES: Route[] = [
  {
    method: 'put',
    path: '/api/v1/webhooks',
    summary: 'Set the outbound webhook (URL, secret, enabled); the secret is shown in full only here',
    body: PutWebhookBody,
    scope: 'campaigns:write',
  },
  {
    method: 'get',
    path: '/api/v1/webhooks',
    summary: 'The outbound webhook, secret masked (scope campaigns:read or campaigns:write)',
    scope: 'campaigns:read',
  },
  {
    method: 'delete',
    path: '/api/v1/webhooks',
    summary: 'Remove the outbound webhook (pending deliveries are abandoned)',
    scope: 'campaigns:write',
  },
  {
    method: 'get',
    path: '/api/v1/webhooks/deliveries',
    summary: 'Webhook deliveries, newest first (scope campaigns:read, campaigns:write or logs:read)',
    scope: 'campaigns:read',
    query: ['page', 'limit', 'status'],
  },
  {
    method: 'get',
    path: '/api/v1/webhooks/deliveries/{id}',
    summary: 'One webhook delivery with its attempts and payload',
    scope: 'campaigns:read',
  },
];
