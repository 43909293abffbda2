/** `POST /initiate/{campaignId}/calls` (decisions.md section 2). */
import { Router } from 'express';
import type { InitiateCalls } from '../../application/calls/initiate-calls';
import { contextOf, paramOf, requireScope } from '../http/auth';
import { validate } from '../http/validation';
import { InitiateCallsBody } from './schemas';

export function callsRouter(initiate: InitiateCalls): Router {
  const router = Router();
  router.post('/initiate/:campaignId/calls', requireScope('calls:write'), async (req, res) => {
    const body = validate(InitiateCallsBody, req.body);
    const answer = await initiate.run(contextOf(res), paramOf(req, 'campaignId'), body);
    res.status(answer.status).json(answer.body);
  });
  return router;
}
