/**
 * Provider routes: connect an organization's account at a real provider (`twilio`, `whatsapp`), read
 * the connections (their secrets masked) and disconnect one. Changes need `providers:write`; reading
 * needs `providers:read` or `providers:write`. A provider the service does not know is 404
 * `Provider not found`, as any other path naming nothing; a known one not connected is 404
 * `Provider not connected`. A connection is made only once the provider shows the credentials control
 * the account (400 when it does not, 503 when it cannot be asked).
 */
import type { Request } from 'express';
import type { ProviderAccountService } from '../../application/providers/provider-account-service';
import { isProviderAlias, type ProviderAlias } from '../../domain/providers/provider-account';
import { contextOf, paramOf } from '../http/auth';
import { HttpError } from '../http/errors';
import { route, type RouteSpec } from '../http/route';
import { accountOf, ProviderAccountBody } from './schemas';
import { providerUnavailableAs503 } from './unavailable';

const READ = ['providers:read', 'providers:write'];
const WRITE = ['providers:write'];
export const PROVIDER_NOT_FOUND = 'Provider not found';

export function providerRoutes(service: ProviderAccountService): RouteSpec[] {
  return [
    route({
      method: 'get',
      path: '/providers',
      operationId: 'listProviders',
      summary: "The organization's provider accounts, their secrets masked",
      scopes: READ,
      handler: async (_req, res) => {
        res.json({ success: true, data: await service.list(contextOf(res)) });
      },
    }),
    route({
      method: 'get',
      path: '/providers/{alias}',
      operationId: 'getProvider',
      summary: "The organization's account at one provider, its secrets masked (404 when not connected)",
      scopes: READ,
      errors: [404],
      handler: async (req, res) => {
        res.json({ success: true, data: await service.one(contextOf(res), aliasParam(req)) });
      },
    }),
    route({
      method: 'put',
      path: '/providers/{alias}',
      operationId: 'connectProvider',
      summary:
        "Connect the organization's account at a provider (twilio or whatsapp), or change its credentials, once the " +
        'provider shows they control it: 400 when it does not (Twilio refuses them for the SID, the WhatsApp token ' +
        'does not show the phone number id), 409 when another organization connected it, 503 when it cannot be asked',
      scopes: WRITE,
      body: ProviderAccountBody,
      // The path names the provider, and so the schema the body is checked against.
      bodyCheck: 'handler',
      errors: [400, 404, 409, 503],
      handler: async (req, res) => {
        const alias = aliasParam(req);
        const data = await providerUnavailableAs503(service.connect(contextOf(res), accountOf(alias, req.body)));
        res.json({ success: true, message: 'Provider connected', data });
      },
    }),
    route({
      method: 'delete',
      path: '/providers/{alias}',
      operationId: 'disconnectProvider',
      summary:
        "Disconnect the organization's account at a provider; its secrets are erased and the account is released " +
        'for another organization to connect',
      scopes: WRITE,
      errors: [404],
      handler: async (req, res) => {
        await service.disconnect(contextOf(res), aliasParam(req));
        res.json({ success: true, message: 'Provider disconnected' });
      },
    }),
  ];
}

function aliasParam(req: Request): ProviderAlias {
  const alias = paramOf(req, 'alias');
  if (!isProviderAlias(alias)) throw new HttpError(404, PROVIDER_NOT_FOUND);
  return alias;
}
