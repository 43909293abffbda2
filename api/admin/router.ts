/** The administration API (decisions.md section 2): organizations, tokens, credits and the number inventory. */
import { Router } from 'express';
import type { NumberService } from '../../application/numbers/number-service';
import type { OrganizationService } from '../../application/organizations/organization-service';
import type { CommandContext } from '../../application/command-handler';
import { paramOf } from '../http/auth';
import { validate } from '../http/validation';
import { inventoryItems } from '../numbers/schemas';
import { AdjustCreditsBody, expiresInSeconds, IssueTokenBody, RegisterOrganizationBody } from './schemas';

export function adminRouter(organizations: OrganizationService, numbers: NumberService): Router {
  const router = Router();
  const admin = (requestId: string): CommandContext => ({ organizationId: null, actor: 'admin', requestId });

  router.post('/organizations', async (req, res) => {
    const body = validate(RegisterOrganizationBody, req.body);
    const org = await organizations.register(admin(res.locals.requestId), body);
    res.status(201).json({ success: true, data: view(org) });
  });
  router.get('/organizations/:id', async (req, res) => {
    res.json({ success: true, data: view(await organizations.get(paramOf(req, 'id'))) });
  });
  router.post('/organizations/:id/tokens', async (req, res) => {
    const body = validate(IssueTokenBody, req.body ?? {});
    const data = await organizations.issueToken(admin(res.locals.requestId), paramOf(req, 'id'), {
      ...body,
      expiresInSeconds: expiresInSeconds(body.expiresIn),
    });
    res.status(201).json({ success: true, data });
  });
  router.post('/organizations/:id/credits', async (req, res) => {
    const { amount } = validate(AdjustCreditsBody, req.body);
    const credits = await organizations.adjustCredits(admin(res.locals.requestId), paramOf(req, 'id'), amount);
    res.json({ success: true, data: { credits } });
  });
  router.post('/numbers/inventory', async (req, res) => {
    res
      .status(201)
      .json({ success: true, data: await numbers.stock(admin(res.locals.requestId), inventoryItems(req.body)) });
  });
  return router;
}

const view = (org: { id: string; name: string; type: string; credits: number; concurrencyLimit: number }) => ({
  id: org.id,
  name: org.name,
  type: org.type,
  credits: org.credits,
  concurrencyLimit: org.concurrencyLimit,
});
