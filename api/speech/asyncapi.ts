/**
 * `/asyncapi.json`: the speech WebSocket protocol as an AsyncAPI 3.0 document, written from the schemas
 * the socket's messages are typed by (socket-messages.ts), as /openapi.json is from the routes. It
 * describes the service: it receives what clients send and sends the rest.
 */
import { Type } from '@sinclair/typebox';
import { closed } from '../http/validation';
import { route, type RouteSpec } from '../http/route';
import { REASONS } from './refused-frames';
import { GOING_AWAY_CLOSE, IDLE_CLOSE, SPEECH_SOCKET_PATH, TOKEN_EXPIRED_CLOSE } from './socket-auth';
import { socketMessages } from './socket-messages';

const pascal = (name: string) => name.replace(/(^|_)([a-z])/g, (_m, _sep, c: string) => c.toUpperCase());

/** What each message does, as its title and summary say. */
const SUMMARIES: Readonly<Record<string, string>> = {
  speech: 'Speak a text',
  cancel: 'Stop a running request',
  ping: 'Check the connection',
  connected: 'The connection is open',
  audio_chunk: "A piece of a request's audio",
  word_timestamps: "The words of a segment and when they are heard, before the segment's audio",
  complete: 'A request ended',
  error: 'A request was refused or failed, or a message was malformed',
  pong: 'The answer to ping',
};

export function asyncApiDocument(): Record<string, unknown> {
  const entries = Object.entries(socketMessages);
  const names = (from: 'client' | 'server') => entries.filter(([, m]) => m.from === from).map(([name]) => name);
  const operation = (action: 'send' | 'receive', name: string) => ({
    action,
    channel: { $ref: '#/channels/speech' },
    summary: SUMMARIES[name],
    messages: [{ $ref: `#/channels/speech/messages/${name}` }],
  });
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Speech streaming (WebSocket)',
      version: '1.0.0',
      description:
        'Text to speech over one WebSocket: several requests may run at once on a connection, their messages tagged with their request_id. ' +
        "For each request the service sends audio_chunk messages (with word_timestamps before each segment's first chunk when asked), then complete or error. " +
        'The REST routes are described at /openapi.json.',
    },
    servers: {
      service: {
        host: '{host}',
        protocol: 'ws',
        description: 'This service (wss behind TLS)',
        variables: { host: { default: 'localhost:8080', description: 'Host and port of the service' } },
        security: [
          { $ref: '#/components/securitySchemes/bearer' },
          { $ref: '#/components/securitySchemes/subprotocol' },
          { $ref: '#/components/securitySchemes/query' },
        ],
      },
    },
    channels: {
      speech: {
        address: SPEECH_SOCKET_PATH,
        title: 'Speech',
        description:
          'Authenticated at the handshake (HTTP 401 or 403 and no socket otherwise); needs the speech scope. ' +
          "A handshake takes a token of the organization's request bucket, as a REST request does, and a place among its open sockets (SPEECH_SOCKETS_PER_ORGANIZATION, default 100): " +
          'without either it is answered HTTP 429 with Retry-After, and 503 (or 429 for one address) when too many connections are still being authenticated; every refusal is the JSON error envelope. ' +
          'The token comes in the Authorization header or, from a browser (which cannot set headers on a WebSocket), as the subprotocols `bearer, <token>` ' +
          "(`new WebSocket(url, ['bearer', token])`; the service answers `Sec-WebSocket-Protocol: bearer`), or as ?token= (which puts it in URLs and logs). " +
          'A malformed message is answered with an error message and the connection stays open; a frame the service refuses closes it with one of the codes of x-close-codes. ' +
          'The service also closes a socket when the token it was opened with expires (4001), when it runs no request and receives nothing (a ping counts) for SPEECH_SOCKET_IDLE_MS (4002; default 300 s), and when it stops (1001).',
        'x-close-codes': {
          ...REASONS,
          [GOING_AWAY_CLOSE.code]: GOING_AWAY_CLOSE.reason,
          [TOKEN_EXPIRED_CLOSE.code]: TOKEN_EXPIRED_CLOSE.reason,
          [IDLE_CLOSE.code]: IDLE_CLOSE.reason,
        },
        servers: [{ $ref: '#/servers/service' }],
        messages: Object.fromEntries(entries.map(([name]) => [name, { $ref: `#/components/messages/${name}` }])),
      },
    },
    operations: Object.fromEntries([
      ...names('client').map((name) => [`receive${pascal(name)}`, operation('receive', name)]),
      ...names('server').map((name) => [`send${pascal(name)}`, operation('send', name)]),
    ]),
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An organization token' },
        subprotocol: {
          type: 'httpApiKey',
          name: 'Sec-WebSocket-Protocol',
          in: 'header',
          description:
            "The same token offered as the subprotocol after `bearer`: `Sec-WebSocket-Protocol: bearer, <token>`, as a browser sends it for `new WebSocket(url, ['bearer', token])`. The service selects `bearer` in its answer",
        },
        query: {
          type: 'httpApiKey',
          name: 'token',
          in: 'query',
          description:
            'The same token as ?token=, for clients that can set neither a header nor a subprotocol (the URL, token included, may be logged)',
        },
      },
      messages: Object.fromEntries(
        entries.map(([name]) => [
          name,
          {
            name,
            title: pascal(name),
            summary: SUMMARIES[name],
            contentType: 'application/json',
            payload: { $ref: `#/components/schemas/${pascal(name)}Message` },
          },
        ]),
      ),
      schemas: Object.fromEntries(entries.map(([name, m]) => [`${pascal(name)}Message`, closed(m.schema)])),
    },
  };
}

const AsyncApiDocument = Type.Object(
  {
    asyncapi: Type.String(),
    info: Type.Object({ title: Type.String(), version: Type.String() }, { additionalProperties: true }),
    channels: Type.Object({}, { additionalProperties: true }),
    operations: Type.Object({}, { additionalProperties: true }),
    components: Type.Object({}, { additionalProperties: true }),
  },
  { additionalProperties: true },
);

export function asyncApiRoutes(): RouteSpec[] {
  const document = asyncApiDocument();
  return [
    route({
      method: 'get',
      path: '/asyncapi.json',
      operationId: 'getAsyncApiDocument',
      summary: 'The speech WebSocket protocol (AsyncAPI 3.0)',
      success: { status: 200, description: 'The document', schema: AsyncApiDocument },
      handler: (_req, res) => {
        res.json(document);
      },
    }),
  ];
}
