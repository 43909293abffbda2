/** Communication logs (spec 4.4), the chat detail (spec 4.5) and the call detail (decisions.md section 2). */
import type { LogService } from '../../application/logs/log-service';
import { contextOf, paramOf } from '../http/auth';
import { validationFailed } from '../http/errors';
import { QueryReader } from '../http/query';
import { route, type RouteSpec } from '../http/route';

const READ = ['logs:read'];

export function logRoutes(logs: LogService): RouteSpec[] {
  return [
    route({
      method: 'get',
      path: '/logs',
      operationId: 'listLogs',
      summary: 'Communication logs: calls and chats, 10 per page, newest first',
      scopes: READ,
      query: [
        'type',
        'status',
        'disposition',
        'from_phone',
        'phone',
        'campaign_id',
        'agent_id',
        'start_time',
        'end_time',
        'page',
        'count_only',
      ],
      errors: [400],
      handler: async (req, res) => {
        const q = new QueryReader(req);
        const filters = {
          type: q.string('type', 20),
          status: q.string('status', 100),
          disposition: q.string('disposition', 200),
          from_phone: q.string('from_phone', 20),
          phone: q.string('phone', 20),
          campaign_id: q.string('campaign_id', 200),
          agent_id: q.string('agent_id', 200),
          start_time: q.string('start_time', 40),
          end_time: q.string('end_time', 40),
          page: q.int('page', 1, 1, 1_000_000),
        };
        const countOnly = q.bool('count_only', false);
        q.done();
        const ctx = contextOf(res);
        if (countOnly) return void res.json({ success: true, total: await logs.count(ctx, filters) });
        res.json({ success: true, ...(await logs.list(ctx, filters)) });
      },
    }),
    route({
      method: 'get',
      path: '/communication/call/{call_id}',
      operationId: 'getCall',
      summary: 'One call, with the fields of its log entry',
      scopes: READ,
      errors: [404],
      handler: async (req, res) => {
        res.json({ success: true, data: await logs.call(contextOf(res), paramOf(req, 'call_id')) });
      },
    }),
    // Without a message id the path still names the operation: 400, as spec 7.2 says, not 404.
    // Express matches the path with or without its trailing slash.
    route({
      method: 'get',
      path: '/communication/chat',
      operationId: 'getChatMessageWithoutId',
      summary: 'Always 400 (`message_id is required`): the chat detail without its message id (spec 7.2)',
      scopes: READ,
      errors: [400],
      handler: () => {
        throw validationFailed(['message_id is required']);
      },
    }),
    route({
      method: 'get',
      path: '/communication/chat/{message_id}',
      operationId: 'getChatMessage',
      summary: 'One chat message with its conversation and delivery errors (spec 4.5)',
      scopes: READ,
      errors: [404],
      handler: async (req, res) => {
        res.json({ success: true, data: await logs.chat(contextOf(res), paramOf(req, 'message_id')) });
      },
    }),
  ];
}
