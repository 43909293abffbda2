/**
 * A data subject's rights (docs/privacy.md): erasure (`privacy:erase`) and export (`privacy:export`),
 * the subject named by a phone number or a customer key of the caller's organization. The retention of
 * conversation content: set or removed with `privacy:erase`, read with `privacy:export` or `privacy:erase`.
 */
import type { PrivacyService, SubjectTarget } from '../../application/privacy/privacy-service';
import type { RetentionService } from '../../application/privacy/retention-service';
import { ErasureUnfinishedError } from '../../application/privacy/erasure-completion';
import type { Response } from 'express';
import { contextOf } from '../http/auth';
import { sendError, validationFailed } from '../http/errors';
import { QueryReader } from '../http/query';
import { route, type RouteSpec } from '../http/route';
import { EraseSubjectBody, SetRetentionBody } from './schemas';

const NAMES = ['phone', 'loan_id', 'lead_id'] as const;

/** The subject a query names: exactly one of its three parameters. */
function targetOf(q: QueryReader): SubjectTarget {
  const given = NAMES.map((name) => [name, q.string(name, 200)] as const).filter(([, value]) => value !== undefined);
  q.done();
  if (given.length !== 1) throw validationFailed(['exactly one of phone, loan_id, lead_id is required']);
  const [name, value] = given[0]!;
  return { [name]: value! } as SubjectTarget;
}

/** Seconds an export refused during an erasure asks its client to wait. */
const ERASURE_RETRY_AFTER_SECONDS = 2;

/** What `work` answers; or, when an erasure is unfinished (being completed, or cut by a stop), 503 with Retry-After and undefined. */
async function unlessUnfinished<T>(res: Response, work: () => Promise<T>): Promise<T | undefined> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof ErasureUnfinishedError)) throw error;
    res.setHeader('Retry-After', String(ERASURE_RETRY_AFTER_SECONDS));
    sendError(res, 503, error.message);
    return undefined;
  }
}

const RETENTION_WRITE = ['privacy:erase'];
const RETENTION_READ = ['privacy:export', 'privacy:erase'];

export function privacyRoutes(service: PrivacyService, retention: RetentionService): RouteSpec[] {
  return [
    route({
      method: 'post',
      path: '/privacy/erase',
      operationId: 'eraseSubject',
      summary: 'Erase a data subject’s personal data (DPDP Act 2023, GDPR art. 17)',
      scopes: ['privacy:erase'],
      body: EraseSubjectBody,
      errors: [400, 404, 503],
      idempotent: true,
      handler: async (_req, res, body) => {
        const data = await unlessUnfinished(res, () => service.erase(contextOf(res), body as SubjectTarget));
        if (data) res.json({ success: true, message: 'Personal data erased', data });
      },
    }),
    route({
      method: 'get',
      path: '/privacy/export',
      operationId: 'exportSubject',
      summary: 'Everything the organization holds about a data subject (DPDP Act 2023, GDPR art. 15 and 20)',
      scopes: ['privacy:export'],
      query: NAMES,
      errors: [400, 404, 503],
      handler: async (req, res) => {
        const target = targetOf(new QueryReader(req));
        const data = await unlessUnfinished(res, () => service.export(contextOf(res), target));
        if (data) res.json({ success: true, data });
      },
    }),
    route({
      method: 'put',
      path: '/privacy/retention',
      operationId: 'setRetention',
      summary: 'How many days after their end the content of calls and chats is kept (null: for ever)',
      scopes: RETENTION_WRITE,
      body: SetRetentionBody,
      errors: [400],
      handler: async (_req, res, body) => {
        const data = await retention.set(contextOf(res), body.days);
        res.json({ success: true, message: 'Retention saved', data });
      },
    }),
    route({
      method: 'get',
      path: '/privacy/retention',
      operationId: 'getRetention',
      summary:
        'How many days after their end the content of calls and chats is kept (scope privacy:export or privacy:erase)',
      scopes: RETENTION_READ,
      handler: async (_req, res) => {
        res.json({ success: true, data: await retention.get(contextOf(res)) });
      },
    }),
    route({
      method: 'delete',
      path: '/privacy/retention',
      operationId: 'deleteRetention',
      summary: 'Keep the content of calls and chats for ever (the default)',
      scopes: RETENTION_WRITE,
      handler: async (_req, res) => {
        const data = await retention.set(contextOf(res), null);
        res.json({ success: true, message: 'Retention removed', data });
      },
    }),
  ];
}
