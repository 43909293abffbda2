/**
 * Chat routes: templates (decisions.md section 2, "ours") and `POST /initiate/{campaignId}/chat`
 * (spec 4.11). Creating templates and initiating chats need `chat:write`; reading templates needs
 * `chat:write` or `campaigns:read` (templates are part of a campaign's setup).
 */
import type { InitiateChat } from '../../application/chats/initiate-chat';
import type { TemplateService } from '../../application/chats/template-service';
import { contextOf, paramOf } from '../http/auth';
import { getByIdRoute, pagedListRoute } from '../http/resource-routes';
import { route, type RouteSpec } from '../http/route';
import { CreateTemplateBody, InitiateChatBody } from './schemas';

const READ = ['chat:write', 'campaigns:read'];
const WRITE = ['chat:write'];

export function chatRoutes(templates: TemplateService, initiate: InitiateChat): RouteSpec[] {
  return [
    route({
      method: 'post',
      path: '/chat/templates',
      operationId: 'createChatTemplate',
      summary: 'Create a chat template ({{placeholders}} of the customer record)',
      scopes: WRITE,
      body: CreateTemplateBody,
      success: { status: 201, description: 'The template' },
      idempotent: true,
      handler: async (_req, res, body) => {
        const data = await templates.create(contextOf(res), body);
        res.status(201).json({ success: true, message: 'Template created successfully', data });
      },
    }),
    pagedListRoute({
      search: true,
      path: '/chat/templates',
      operationId: 'listChatTemplates',
      summary: 'List chat templates (scope chat:write or campaigns:read)',
      scopes: READ,
      list: (ctx, query) => templates.list(ctx, query),
    }),
    getByIdRoute({
      path: '/chat/templates/{id}',
      operationId: 'getChatTemplate',
      summary: 'Get a chat template (scope chat:write or campaigns:read)',
      scopes: READ,
      get: (ctx, id) => templates.get(ctx, id),
    }),
    route({
      method: 'post',
      path: '/initiate/{campaignId}/chat',
      operationId: 'initiateChat',
      summary: 'Send a chat template to the customers of a campaign that match the filters (spec 4.11)',
      scopes: WRITE,
      body: InitiateChatBody,
      errors: [404],
      success: {
        status: 200,
        description: 'Every selected customer got a message (207 some did, 500 none did)',
        also: [
          {
            status: 207,
            description: 'Some of the selected customers got a message: `results` says why not the others',
          },
        ],
      },
      idempotent: true,
      handler: async (req, res, body) => {
        const answer = await initiate.run(contextOf(res), paramOf(req, 'campaignId'), body);
        res.status(answer.status).json(answer.body);
      },
    }),
  ];
}
