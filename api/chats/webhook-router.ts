/**
 * The inbound event endpoint of chat platforms: `POST /chat/v1/{provider}/reports`, the path a real
 * platform's webhooks call. The built-in platform reports through the same `ChatPlatformReports` in
 * process. Authenticated with the platforms' shared secret (`CHAT_WEBHOOK_SECRET`), compared in
 * constant time; without a configured secret the endpoint refuses everything. Reports for an unknown
 * message answer 404 `Chat message not found`; repeated or late reports answer 200 and change nothing.
 */
import type { ChatPlatformReports } from '../../application/chats/chat-platform-reports';
import { paramOf } from '../http/auth';
import { route, type RouteSpec } from '../http/route';
import { ChatReportBody } from './schemas';

export function chatWebhookRoutes(reports: ChatPlatformReports): RouteSpec[] {
  return [
    route({
      method: 'post',
      path: '/{provider}/reports',
      operationId: 'receiveChatReport',
      summary: "A chat platform's message report (webhook; bearer CHAT_WEBHOOK_SECRET)",
      body: ChatReportBody,
      errors: [404],
      handler: async (req, res, r) => {
        const source = { provider: paramOf(req, 'provider'), requestId: res.locals.requestId as string };
        if (r.kind === 'closed')
          await reports.receive(
            {
              messageId: r.messageId,
              kind: 'closed',
              at: r.at,
              reason: r.reason ?? 'closed',
              disposition: r.disposition ?? null,
              summary: r.summary ?? '',
            },
            source,
          );
        else await reports.receive(r, source);
        res.json({ success: true });
      },
    }),
  ];
}
