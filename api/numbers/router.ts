/**
 * Number routes: search the available numbers (spec 4.8), buy some (anchor `buyNumbers`), import those
 * the organization holds at a real provider whose account it connected (`importNumbers`), list the
 * organization's own, read one, release one, and give one an inbound agent and disposition or take
 * them away (docs/inbound.md). Scopes `numbers:read` and `numbers:write`.
 */
import type { Request } from 'express';
import type { NumberService, SearchQuery } from '../../application/numbers/number-service';
import { normalizeDialString } from '../../domain/numbers/phone-number';
import { contextOf, paramOf } from '../http/auth';
import { HttpError, validationFailed } from '../http/errors';
import { QueryReader } from '../http/query';
import { pagedListRoute } from '../http/resource-routes';
import { route, type RouteSpec } from '../http/route';
import { providerUnavailableAs503 } from '../providers/unavailable';
import { BuyNumbersBody, DEFAULT_PROVIDER, ImportNumbersBody, InboundRoutingBody } from './schemas';

const READ = ['numbers:read'];
const WRITE = ['numbers:write'];

export function numberRoutes(service: NumberService): RouteSpec[] {
  return [
    route({
      method: 'get',
      path: '/numbers/search',
      operationId: 'searchNumbers',
      summary: 'Search available numbers (404 when none match)',
      scopes: READ,
      query: ['provider', 'country_iso', 'limit', 'page', 'prefix'],
      errors: [400, 404],
      handler: async (req, res) => {
        const answer = await service.search(searchQuery(req));
        res.json(answer);
      },
    }),
    route({
      method: 'post',
      path: '/numbers/buyNumbers',
      operationId: 'buyNumbers',
      summary:
        'Buy numbers (each succeeds or fails on its own); 503 when a stocked number another organization imported ' +
        "cannot be checked with that organization's provider",
      scopes: WRITE,
      body: BuyNumbersBody,
      idempotent: true,
      errors: [503],
      handler: async (_req, res, body) => {
        const items = body.map((item) => ({
          number: normalizeDialString(item.number),
          provider: (item.provider ?? DEFAULT_PROVIDER).toLowerCase(),
        }));
        res.json(await providerUnavailableAs503(service.buy(contextOf(res), items)));
      },
    }),
    route({
      method: 'post',
      path: '/numbers/import',
      operationId: 'importNumbers',
      summary:
        "Import numbers held at a connected provider's account (each succeeds or fails on its own): a number must be " +
        "among the account's incoming numbers at the provider, and one the service's inventory offers is bought " +
        '(POST /numbers/buyNumbers) instead; 503 with nothing imported when the provider cannot be asked',
      scopes: WRITE,
      body: ImportNumbersBody,
      idempotent: true,
      errors: [503],
      handler: async (_req, res, body) => {
        const items = body.map((item) => ({
          number: normalizeDialString(item.number),
          provider: item.provider,
          voice_enabled: item.voice_enabled ?? true,
          sms_enabled: item.sms_enabled ?? true,
        }));
        res.json(await providerUnavailableAs503(service.import(contextOf(res), items)));
      },
    }),
    pagedListRoute({
      path: '/numbers',
      operationId: 'listNumbers',
      summary: "List the organization's numbers",
      scopes: READ,
      list: (ctx, query) => service.owned(ctx, query),
    }),
    route({
      method: 'get',
      path: '/numbers/{number}',
      operationId: 'getNumber',
      summary: "One of the organization's numbers, with its inbound routing",
      scopes: READ,
      errors: [404],
      handler: async (req, res) => {
        res.json({ success: true, data: await service.ownedOne(contextOf(res), numberParam(req)) });
      },
    }),
    route({
      method: 'delete',
      path: '/numbers/{number}',
      operationId: 'releaseNumber',
      summary:
        "Release one of the organization's numbers: a bought one is offered again by its provider, an imported one " +
        'leaves the service (its provider account keeps it); either may then be bought or imported again',
      scopes: WRITE,
      errors: [404],
      handler: async (req, res) => {
        await service.release(contextOf(res), numberParam(req));
        res.json({ success: true, message: 'Number released' });
      },
    }),
    route({
      method: 'put',
      path: '/numbers/{number}/inbound',
      operationId: 'setNumberInbound',
      summary: 'Give a number an inbound agent and disposition: its inbound calls and chats are answered',
      scopes: WRITE,
      body: InboundRoutingBody,
      errors: [400, 404],
      handler: async (req, res, body) => {
        res.json({ success: true, data: await service.setInbound(contextOf(res), numberParam(req), body) });
      },
    }),
    route({
      method: 'delete',
      path: '/numbers/{number}/inbound',
      operationId: 'clearNumberInbound',
      summary: "Take a number's inbound routing away: its inbound calls and chats are refused",
      scopes: WRITE,
      errors: [404],
      handler: async (req, res) => {
        res.json({ success: true, data: await service.clearInbound(contextOf(res), numberParam(req)) });
      },
    }),
  ];
}

/** The number of the path, E.164 (`%2B919876543210`); its digits alone (`919876543210`) name it too. */
function numberParam(req: Request): string {
  const number = normalizeDialString(paramOf(req, 'number'));
  return number.startsWith('+') ? number : `+${number}`;
}

function searchQuery(req: Request): SearchQuery {
  const q = new QueryReader(req);
  const errors: string[] = [];
  const provider = q.string('provider', 50) ?? DEFAULT_PROVIDER;
  const country = q.string('country_iso', 50) ?? 'IN';
  if (!/^[A-Za-z]{2}$/.test(country)) errors.push('country_iso must be a two-letter country code');
  const prefix = q.string('prefix', 14);
  if (prefix !== undefined && !/^[0-9]+$/.test(prefix)) errors.push('prefix must contain only digits');
  const query = {
    provider: provider.toLowerCase(),
    country_iso: country.toUpperCase(),
    limit: q.int('limit', 10, 1, 100),
    page: q.int('page', 1, 1, 1_000_000),
    ...(prefix && { prefix }),
  };
  try {
    q.done();
  } catch (error) {
    if (error instanceof HttpError)
      throw validationFailed([...((error.extra.errors as string[] | undefined) ?? []), ...errors]);
    throw error;
  }
  if (errors.length > 0) throw validationFailed(errors);
  return query;
}
