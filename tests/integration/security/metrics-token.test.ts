/** With METRICS_TOKEN set, /metrics answers only a scraper presenting it; without, it is open (docs/api-decisions.md). */
import { UNAUTHORIZED_MESSAGE } from '../../../api/http/errors';
import { startTestService, type TestService } from '../../support/test-service';

describe('/metrics behind METRICS_TOKEN', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ env: { METRICS_TOKEN: 'scrape-me-scrape-me' } });
  });
  afterAll(() => t.stop());

  it.each([
    ['no token', undefined],
    ['another token', 'scrape-me-not'],
    ['the admin token', 'test-admin-token'],
  ])('answers 401 in the envelope to a request with %s', async (_case, token) => {
    const reply = await t.request('GET', '/metrics', { token: token ?? null });
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ success: false, error: 'Unauthorized', message: UNAUTHORIZED_MESSAGE });
  });

  it('answers the metrics to a request with the token', async () => {
    const reply = await t.request('GET', '/metrics', { token: 'scrape-me-scrape-me' });
    expect(reply.status).toBe(200);
    expect(reply.text).toContain('# TYPE http_requests_total counter');
  });

  it('leaves the other operations endpoints open', async () => {
    expect((await t.request('GET', '/healthz')).status).toBe(200);
  });
});
