/**
 * Number routes: search the available numbers (spec 4.8), buy some (anchor `buyNumbers`), and list
 * the organization's own. Scopes `numbers:read` and `numbers:write`.
 */
import { Router, type Request } from 'express';
import type { NumberService, SearchQuery } from '../../application/numbers/number-service';
import { normalizeDialString } from '../../domain/numbers/phone-number';
import { contextOf, requireScope } from '../http/auth';
import { HttpError, validationFailed } from '../http/errors';
import { QueryReader } from '../http/query';
import { validate } from '../http/validation';
import { BuyNumbersBody, DEFAULT_PROVIDER } from './schemas';

export function numbersRouter(service: NumberService): Router {
  const router = Router();
  const read = requireScope('numbers:read');
  const write = requireScope('numbers:write');

  router.get('/numbers/search', read, async (req, res) => {
    const answer = await service.search(searchQuery(req));
    res.json(answer);
  });
  router.post('/numbers/buyNumbers', write, async (req, res) => {
    const items = validate(BuyNumbersBody, req.body).map((item) => ({
      number: normalizeDialString(item.number),
      provider: (item.provider ?? DEFAULT_PROVIDER).toLowerCase(),
    }));
    res.json(await service.buy(contextOf(res), items));
  });
  router.get('/numbers', read, async (req, res) => {
    const q = new QueryReader(req);
    const query = { page: q.int('page', 1, 1, 1_000_000), limit: q.int('limit', 10, 1, 100) };
    q.done();
    res.json({ success: true, ...(await service.owned(contextOf(res), query)) });
  });
  return router;
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
