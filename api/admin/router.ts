/**
 * The administration API (decisions.md section 2): organizations, tokens, credits, the number
 * inventory, and simulated inbound traffic on the built-in providers (docs/inbound.md).
 */
import type { InboundSimulation } from '../../application/inbound/inbound-simulation';
import type { NumberService } from '../../application/numbers/number-service';
import { normalizeDialString } from '../../domain/numbers/phone-number';
import type { OrganizationService } from '../../application/organizations/organization-service';
import type { CommandContext } from '../../application/command-handler';
import { DEFAULT_CALLING_HOURS, type CallingHours } from '../../domain/campaigns/schedule';
import type { OrganizationType } from '../../domain/organizations/organization';
import type { OrganizationDocument } from '../../projections/organizations/organizations';
import { paramOf } from '../http/auth';
import { route, type RouteSpec } from '../http/route';
import { validate } from '../http/validation';
import { inventoryItems, StockNumbersBody } from '../numbers/schemas';
import {
  AdjustCreditsBody,
  CallingHoursBody,
  expiresInSeconds,
  IssueTokenBody,
  RegisterOrganizationBody,
  SimulateInboundBody,
} from './schemas';

const admin = (requestId: string): CommandContext => ({ organizationId: null, actor: 'admin', requestId });

export function adminRoutes(
  organizations: OrganizationService,
  numbers: NumberService,
  inbound: InboundSimulation,
  /** The calling hours of organizations that were given none. */
  defaultHours: Record<OrganizationType, CallingHours> = DEFAULT_CALLING_HOURS,
): RouteSpec[] {
  const view = (org: OrganizationDocument) => ({
    id: org.id,
    name: org.name,
    type: org.type,
    credits: org.credits,
    concurrencyLimit: org.concurrencyLimit,
    callingHours: org.callingHours ?? defaultHours[org.type],
  });
  return [
    route({
      method: 'post',
      path: '/organizations',
      operationId: 'registerOrganization',
      summary: 'Register an organization',
      body: RegisterOrganizationBody,
      success: { status: 201, description: 'The organization' },
      handler: async (_req, res, body) => {
        const org = await organizations.register(admin(res.locals.requestId), body);
        res.status(201).json({ success: true, data: view(org) });
      },
    }),
    route({
      method: 'get',
      path: '/organizations/{id}',
      operationId: 'getOrganization',
      summary: 'Get an organization',
      errors: [404],
      handler: async (req, res) => {
        res.json({ success: true, data: view(await organizations.get(paramOf(req, 'id'))) });
      },
    }),
    route({
      method: 'post',
      path: '/organizations/{id}/tokens',
      operationId: 'issueOrganizationToken',
      summary: 'Issue an organization token',
      // Every field is optional: a request without a body issues a token with the defaults.
      body: IssueTokenBody,
      bodyCheck: 'handler',
      errors: [404],
      success: { status: 201, description: 'The token and when it expires' },
      handler: async (req, res) => {
        const body = validate(IssueTokenBody, req.body ?? {});
        const data = await organizations.issueToken(admin(res.locals.requestId), paramOf(req, 'id'), {
          ...body,
          expiresInSeconds: expiresInSeconds(body.expiresIn),
        });
        res.status(201).json({ success: true, data });
      },
    }),
    route({
      method: 'post',
      path: '/organizations/{id}/credits',
      operationId: 'adjustOrganizationCredits',
      summary: 'Adjust speech credits',
      body: AdjustCreditsBody,
      errors: [404],
      handler: async (req, res, { amount }) => {
        const credits = await organizations.adjustCredits(admin(res.locals.requestId), paramOf(req, 'id'), amount);
        res.json({ success: true, data: { credits } });
      },
    }),
    route({
      method: 'put',
      path: '/organizations/{id}/calling-hours',
      operationId: 'setOrganizationCallingHours',
      summary: "Set the hours the organization's customers may be called in (their local time)",
      body: CallingHoursBody,
      errors: [404],
      handler: async (req, res, body) => {
        const org = await organizations.setCallingHours(admin(res.locals.requestId), paramOf(req, 'id'), body);
        res.json({ success: true, data: view(org) });
      },
    }),
    route({
      method: 'post',
      path: '/numbers/inventory',
      operationId: 'stockNumbers',
      summary: "Add numbers to providers' inventories",
      // inventoryItems validates the body and normalizes each item (provider lower-cased, country upper-cased).
      body: StockNumbersBody,
      bodyCheck: 'handler',
      success: { status: 201, description: 'How many numbers were added' },
      handler: async (req, res) => {
        res
          .status(201)
          .json({ success: true, data: await numbers.stock(admin(res.locals.requestId), inventoryItems(req.body)) });
      },
    }),
    route({
      method: 'post',
      path: '/simulate/inbound',
      operationId: 'simulateInbound',
      summary: 'Simulate a caller calling, or writing first to, a number on the built-in providers',
      body: SimulateInboundBody,
      success: {
        status: 200,
        description: 'What the provider was told: answered (with the call or chat id) or refused, and why',
      },
      handler: async (_req, res, body) => {
        const data = await inbound.simulate({
          number: normalizeDialString(body.number),
          channel: body.channel,
          ...(body.from !== undefined && { from: normalizeDialString(body.from) }),
        });
        res.json({ success: true, data });
      },
    }),
  ];
}
