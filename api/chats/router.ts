/**
 * Chat routes: templates (decisions.md section 2, "ours") and `POST /initiate/{campaignId}/chat`
 * (spec 4.11). Creating templates and initiating chats need `chat:write`; reading templates needs
 * `chat:write` or `campaigns:read` (templates are part of a campaign's setup).
 */
import { Router } from 'express';
import type { InitiateChat } from '../../application/chats/initiate-chat';
import type { TemplateService } from '../../application/chats/template-service';
import { contextOf, paramOf, requireScope } from '../http/auth';
import { QueryReader } from '../http/query';
import { validate } from '../http/validation';
import { CreateTemplateBody, InitiateChatBody } from './schemas';

export function chatsRouter(templates: TemplateService, initiate: InitiateChat): Router {
  const router = Router();
  const read = requireScope('chat:write', 'campaigns:read');
  const write = requireScope('chat:write');

  router.post('/chat/templates', write, async (req, res) => {
    const data = await templates.create(contextOf(res), validate(CreateTemplateBody, req.body));
    res.status(201).json({ success: true, message: 'Template created successfully', data });
  });
  router.get('/chat/templates', read, async (req, res) => {
    const q = new QueryReader(req);
    const query = {
      page: q.int('page', 1, 1, 1_000_000),
      limit: q.int('limit', 10, 1, 100),
      search: q.string('search'),
    };
    q.done();
    res.json({ success: true, ...(await templates.list(contextOf(res), query)) });
  });
  router.get('/chat/templates/:id', read, async (req, res) => {
    res.json({ success: true, data: await templates.get(contextOf(res), paramOf(req, 'id')) });
  });

  router.post('/initiate/:campaignId/chat', write, async (req, res) => {
    const body = validate(InitiateChatBody, req.body);
    const answer = await initiate.run(contextOf(res), paramOf(req, 'campaignId'), body);
    res.status(answer.status).json(answer.body);
  });
  return router;
}
