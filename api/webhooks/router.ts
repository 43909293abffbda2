/**
 * Outbound webhook routes (decisions.md section 2, "ours"). Setting or removing the webhook needs
 * `campaigns:write`; reading the settings needs `campaigns:read` or `campaigns:write`; reading
 * deliveries (which carry log entries) also accepts `logs:read`.
 */
import type { WebhookDeliveriesService } from '../../application/webhooks/webhook-deliveries-service';
import type { WebhookSettingsService } from '../../application/webhooks/webhook-settings-service';
import { DELIVERY_STATUSES } from '../../projections/webhooks/webhook-deliveries';
import { contextOf, paramOf } from '../http/auth';
import { QueryReader } from '../http/query';
import { route, type RouteSpec } from '../http/route';
import { PutWebhookBody } from './schemas';

const WRITE = ['campaigns:write'];
const READ = ['campaigns:read', 'campaigns:write'];
const READ_DELIVERIES = ['campaigns:read', 'campaigns:write', 'logs:read'];

export function webhookRoutes(settings: WebhookSettingsService, deliveries: WebhookDeliveriesService): RouteSpec[] {
  return [
    route({
      method: 'put',
      path: '/webhooks',
      operationId: 'setWebhook',
      summary: 'Set the outbound webhook (URL, secret, enabled); the secret is shown in full only here',
      scopes: WRITE,
      body: PutWebhookBody,
      errors: [404],
      handler: async (_req, res, body) => {
        res.json({
          success: true,
          message: 'Webhook saved',
          data: await settings.configure(contextOf(res), body),
        });
      },
    }),
    route({
      method: 'get',
      path: '/webhooks',
      operationId: 'getWebhook',
      summary: 'The outbound webhook, secret masked (scope campaigns:read or campaigns:write)',
      scopes: READ,
      errors: [404],
      handler: async (_req, res) => {
        res.json({ success: true, data: await settings.get(contextOf(res)) });
      },
    }),
    route({
      method: 'delete',
      path: '/webhooks',
      operationId: 'deleteWebhook',
      summary: 'Remove the outbound webhook (pending deliveries are abandoned)',
      scopes: WRITE,
      errors: [404],
      handler: async (_req, res) => {
        await settings.remove(contextOf(res));
        res.json({ success: true, message: 'Webhook removed' });
      },
    }),
    route({
      method: 'get',
      path: '/webhooks/deliveries',
      operationId: 'listWebhookDeliveries',
      summary: 'Webhook deliveries, newest first (scope campaigns:read, campaigns:write or logs:read)',
      scopes: READ_DELIVERIES,
      query: ['page', 'limit', 'status'],
      errors: [400],
      handler: async (req, res) => {
        const q = new QueryReader(req);
        const query = {
          ...q.paging(),
          status: q.oneOf('status', DELIVERY_STATUSES),
        };
        q.done();
        res.json({ success: true, ...(await deliveries.list(contextOf(res), query)) });
      },
    }),
    route({
      method: 'get',
      path: '/webhooks/deliveries/{id}',
      operationId: 'getWebhookDelivery',
      summary: 'One webhook delivery with its attempts and payload',
      scopes: READ_DELIVERIES,
      errors: [404],
      handler: async (req, res) => {
        res.json({ success: true, data: await deliveries.get(contextOf(res), paramOf(req, 'id')) });
      },
    }),
  ];
}
