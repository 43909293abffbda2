/** `POST /initiate/{campaignId}/calls` (decisions.md section 2). */
import type { InitiateCalls } from '../../application/calls/initiate-calls';
import { contextOf, paramOf } from '../http/auth';
import { route, type RouteSpec } from '../http/route';
import { InitiateCallsBody } from './schemas';

export function callRoutes(initiate: InitiateCalls): RouteSpec[] {
  return [
    route({
      method: 'post',
      path: '/initiate/{campaignId}/calls',
      operationId: 'initiateCalls',
      summary: 'Call the customers of a campaign that match the filters (results as spec 4.11)',
      scopes: ['calls:write'],
      body: InitiateCallsBody,
      errors: [404],
      success: {
        status: 200,
        description: 'Every selected customer got a call (207 when some did, 500 when none did: `results` says why)',
        also: [
          { status: 207, description: 'Some of the selected customers got a call: `results` says why not the others' },
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
