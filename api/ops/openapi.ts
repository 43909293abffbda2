/** The OpenAPI 3.1 document, built from the same TypeBox schemas that validate the requests. */
import type { TSchema } from '@sinclair/typebox';
import { IssueTokenBody, AdjustCreditsBody, RegisterOrganizationBody } from '../admin/schemas';
import { CreateAgentBody } from '../agents/schemas';
import { InitiateCallsBody } from '../calls/schemas';
import { CreateCampaignBody, UpdateCampaignBody } from '../campaigns/schemas';
import { BlacklistAddBody, BlacklistRemoveBody } from '../blacklist/schemas';
import { AddCustomerBody, BulkAddCustomersBody, UpdateCustomerBody } from '../customers/schemas';
import { BuyNumbersBody, StockNumbersBody } from '../numbers/schemas';
import {
  CreateDispositionBody,
  CreateGroupBody,
  GroupMembersBody,
  UpdateDispositionBody,
  UpdateGroupBody,
} from '../dispositions/schemas';
import { AUDIT_ROUTES } from '../audit/router';
import { CarrierReportBody } from '../carrier/router';
import { SpeechRequestSchema } from '../speech/request';
import { closed } from '../http/validation';
import { ANALYTICS_ROUTES } from '../analytics/router';

/** `public`: answered without any token (`security: []`); `admin`: the admin token (or a provider's shared secret). */
export type Route = {
  method: string;
  path: string;
  summary: string;
  body?: TSchema;
  scope?: string;
  admin?: boolean;
  public?: boolean;
  query?: string[];
};

export const ROUTES: Route[] = [
  {
    method: 'post',
    path: '/api/v1/dispositions',
    summary: 'Create a disposition',
    body: CreateDispositionBody,
    scope: 'dispositions:write',
  },
  {
    method: 'get',
    path: '/api/v1/dispositions',
    summary: 'List dispositions',
    scope: 'dispositions:read',
    query: ['page', 'limit', 'search'],
  },
  { method: 'get', path: '/api/v1/dispositions/{id}', summary: 'Get a disposition', scope: 'dispositions:read' },
  {
    method: 'put',
    path: '/api/v1/dispositions/{id}',
    summary: 'Update a disposition',
    body: UpdateDispositionBody,
    scope: 'dispositions:write',
  },
  {
    method: 'delete',
    path: '/api/v1/dispositions/{id}',
    summary: 'Delete a disposition (not while it is in a group)',
    scope: 'dispositions:write',
  },
  {
    method: 'post',
    path: '/api/v1/dispositions/groups/create',
    summary: 'Create a disposition group',
    body: CreateGroupBody,
    scope: 'dispositions:write',
  },
  {
    method: 'get',
    path: '/api/v1/dispositions/groups/list',
    summary: 'List disposition groups',
    scope: 'dispositions:read',
    query: ['page', 'limit', 'search', 'expand'],
  },
  {
    method: 'get',
    path: '/api/v1/dispositions/groups/{id}',
    summary: 'Get a disposition group',
    scope: 'dispositions:read',
    query: ['expand'],
  },
  {
    method: 'put',
    path: '/api/v1/dispositions/groups/{id}',
    summary: 'Update a group (replaces its member list)',
    body: UpdateGroupBody,
    scope: 'dispositions:write',
  },
  {
    method: 'delete',
    path: '/api/v1/dispositions/groups/{id}',
    summary: 'Delete a group (its dispositions stay)',
    scope: 'dispositions:write',
  },
  {
    method: 'post',
    path: '/api/v1/dispositions/groups/{id}/dispositions',
    summary: 'Add dispositions to a group',
    body: GroupMembersBody,
    scope: 'dispositions:write',
  },
  {
    method: 'delete',
    path: '/api/v1/dispositions/groups/{id}/dispositions',
    summary: 'Remove dispositions from a group',
    body: GroupMembersBody,
    scope: 'dispositions:write',
  },
  {
    method: 'post',
    path: '/api/v1/campaigns/create',
    summary: 'Create a campaign',
    body: CreateCampaignBody,
    scope: 'campaigns:write',
  },
  {
    method: 'get',
    path: '/api/v1/campaigns',
    summary: 'List campaigns',
    scope: 'campaigns:read',
    query: ['page', 'limit', 'status', 'search'],
  },
  { method: 'get', path: '/api/v1/campaigns/{id}', summary: 'Get a campaign', scope: 'campaigns:read' },
  {
    method: 'put',
    path: '/api/v1/campaigns/update/{id}',
    summary: 'Update a campaign',
    body: UpdateCampaignBody,
    scope: 'campaigns:write',
  },
  { method: 'patch', path: '/api/v1/campaigns/pause/{id}', summary: 'Pause a campaign', scope: 'campaigns:write' },
  { method: 'patch', path: '/api/v1/campaigns/resume/{id}', summary: 'Resume a campaign', scope: 'campaigns:write' },
  {
    method: 'delete',
    path: '/api/v1/campaigns/{id}',
    summary: 'Delete a campaign (its history is kept)',
    scope: 'campaigns:write',
  },
  {
    method: 'get',
    path: '/api/v1/campaigns/{id}/customers',
    summary: "List a campaign's customers",
    scope: 'campaigns:read',
    query: ['page', 'limit'],
  },
  {
    method: 'post',
    path: '/api/v1/customers/add',
    summary: 'Add one customer to a campaign',
    body: AddCustomerBody,
    scope: 'customers:write',
  },
  {
    method: 'post',
    path: '/api/v1/customers/add/bulk',
    summary: 'Add up to 10,000 customers to a campaign (201 all, 207 some, 400 none)',
    body: BulkAddCustomersBody,
    scope: 'customers:write',
  },
  {
    method: 'put',
    path: '/api/v1/customers/update',
    summary: "Change fields of a customer's record",
    body: UpdateCustomerBody,
    scope: 'customers:write',
  },
  {
    method: 'post',
    path: '/api/v1/agents',
    summary: 'Create an AI agent',
    body: CreateAgentBody,
    scope: 'agents:write',
  },
  {
    method: 'get',
    path: '/api/v1/agents',
    summary: 'List AI agents (scope agents:write or campaigns:read)',
    scope: 'campaigns:read',
    query: ['page', 'limit', 'search'],
  },
  {
    method: 'get',
    path: '/api/v1/agents/{id}',
    summary: 'Get an AI agent (scope agents:write or campaigns:read)',
    scope: 'campaigns:read',
  },
  {
    method: 'get',
    path: '/api/v1/numbers/search',
    summary: 'Search available numbers (404 when none match)',
    scope: 'numbers:read',
    query: ['provider', 'country_iso', 'limit', 'page', 'prefix'],
  },
  {
    method: 'post',
    path: '/api/v1/numbers/buyNumbers',
    summary: 'Buy numbers (each succeeds or fails on its own)',
    body: BuyNumbersBody,
    scope: 'numbers:write',
  },
  {
    method: 'get',
    path: '/api/v1/numbers',
    summary: "List the organization's numbers",
    scope: 'numbers:read',
    query: ['page', 'limit'],
  },
  {
    method: 'post',
    path: '/api/v1/blacklist/bulk/add',
    summary: 'Add numbers to the blacklist',
    body: BlacklistAddBody,
    scope: 'blacklist:write',
  },
  {
    method: 'delete',
    path: '/api/v1/blacklist/bulk/remove',
    summary: 'Remove numbers from the blacklist',
    body: BlacklistRemoveBody,
    scope: 'blacklist:write',
  },
  {
    method: 'get',
    path: '/api/v1/blacklist',
    summary: 'List the blacklist (scope blacklist:write or logs:read)',
    scope: 'blacklist:write',
    query: ['page', 'limit'],
  },
  {
    method: 'post',
    path: '/admin/v1/organizations',
    summary: 'Register an organization',
    body: RegisterOrganizationBody,
    admin: true,
  },
  { method: 'get', path: '/admin/v1/organizations/{id}', summary: 'Get an organization', admin: true },
  {
    method: 'post',
    path: '/admin/v1/organizations/{id}/tokens',
    summary: 'Issue an organization token',
    body: IssueTokenBody,
    admin: true,
  },
  {
    method: 'post',
    path: '/admin/v1/organizations/{id}/credits',
    summary: 'Adjust speech credits',
    body: AdjustCreditsBody,
    admin: true,
  },
  {
    method: 'post',
    path: '/admin/v1/numbers/inventory',
    summary: "Add numbers to providers' inventories",
    body: StockNumbersBody,
    admin: true,
  },
  {
    method: 'post',
    path: '/api/v1/initiate/{campaignId}/calls',
    summary: 'Call the customers of a campaign that match the filters (results as spec 4.11)',
    body: InitiateCallsBody,
    scope: 'calls:write',
  },
  {
    method: 'get',
    path: '/api/v1/logs',
    summary: 'Communication logs: calls and chats, 10 per page, newest first',
    scope: 'logs:read',
    query: [
      'type',
      'status',
      'disposition',
      'from_phone',
      'phone',
      'campaign_id',
      'agent_id',
      'start_time',
      'end_time',
      'page',
      'count_only',
    ],
  },
  {
    method: 'get',
    path: '/api/v1/communication/call/{call_id}',
    summary: 'One call, with the fields of its log entry',
    scope: 'logs:read',
  },
  { method: 'get', path: '/api/v1/transcript/{transcript_id}', summary: 'A call transcript', scope: 'logs:read' },
  {
    method: 'get',
    path: '/api/v1/recording/{recording_id}',
    summary: 'A call recording (audio/wav; byte ranges supported)',
    scope: 'logs:read',
  },
  {
    method: 'get',
    path: '/api/v1/recordings/{recording_id}',
    summary: 'Alias of /recording/{recording_id}',
    scope: 'logs:read',
  },
  { method: 'get', path: '/api/v1/get_voices', summary: 'The five voices', scope: 'speech' },
  {
    method: 'post',
    path: '/api/v1/get_speech',
    summary: 'Text to speech, streamed as WAV or raw PCM (the WebSocket form is at the same path)',
    body: SpeechRequestSchema,
    scope: 'speech',
  },
  {
    method: 'post',
    path: '/carrier/v1/{provider}/reports',
    summary: "A carrier's call report (webhook; bearer CARRIER_WEBHOOK_SECRET)",
    body: CarrierReportBody,
    admin: true,
  },
  ...AUDIT_ROUTES,
  ...ANALYTICS_ROUTES,
];

export function openApiDocument(extra: readonly Route[] = []): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of [...ROUTES, ...extra]) {
    const params = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    const query = (route.query ?? []).map((name) => ({
      name,
      in: 'query',
      required: false,
      schema: { type: 'string' },
    }));
    (paths[route.path] ??= {})[route.method] = {
      summary: route.summary,
      security: route.public ? [] : [{ [route.admin ? 'adminToken' : 'bearerAuth']: [] }],
      ...(route.scope && { 'x-required-scope': route.scope }),
      parameters: [...params, ...query],
      ...(route.body && {
        requestBody: { required: true, content: { 'application/json': { schema: closed(route.body) } } },
      }),
      responses: {
        default: { description: 'JSON: `success`, `data` or `message`; errors use the envelope of spec 7.1' },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Voice and agent communication service', version: '1.0.0' },
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        adminToken: { type: 'http', scheme: 'bearer' },
      },
    },
    paths,
  };
}

/** A self-contained page (no external scripts) that lists the operations of /openapi.json. */
export function docsPage(): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>API</title>
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}code{background:#f3f3f3;padding:0 .3em}li{margin:.4em 0}pre{background:#f7f7f7;padding:.5em;overflow:auto}</style></head>
<body><h1>Voice and agent communication service</h1><p>Machine-readable description: <a href="/openapi.json">/openapi.json</a></p><ul id="ops"></ul>
<script>fetch('/openapi.json').then(r=>r.json()).then(d=>{const ul=document.getElementById('ops');for(const [p,ops] of Object.entries(d.paths))for(const [m,o] of Object.entries(ops)){const li=document.createElement('li');li.innerHTML='<code>'+m.toUpperCase()+' '+p+'</code> '+o.summary+(o['x-required-scope']?' <small>(scope '+o['x-required-scope']+')</small>':'')+(o.requestBody?'<details><summary>body</summary><pre>'+JSON.stringify(o.requestBody.content['application/json'].schema,null,2)+'</pre></details>':'');ul.appendChild(li);}});</script>
</body></html>`;
}
