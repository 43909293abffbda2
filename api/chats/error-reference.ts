/**
 * The chat delivery error reference that each delivery error's `href` links to (spec 2.3):
 * `GET /chat/v1/errors`, one section per code, built from the same catalog the errors come from.
 * Public, like /docs: it describes the service, not an organization's data.
 */
import { CHAT_ERROR_REFERENCE, deliveryErrorCodes } from '../../domain/chats/delivery-errors';
import { route, type RouteSpec } from '../http/route';

const escape = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

export function chatErrorReferenceRoutes(): RouteSpec[] {
  const page = `<!doctype html><html><head><meta charset="utf-8"><title>Chat delivery errors</title>
<style>body{font-family:system-ui,sans-serif;max-width:50rem;margin:2rem auto;padding:0 1rem}code{background:#f3f3f3;padding:0 .3em}</style></head>
<body><h1>Chat delivery errors</h1><p>A chat message that fails carries delivery errors with these codes in <code>errors</code>.</p>
${deliveryErrorCodes()
  .map((e) => `<section id="${e.code}"><h2>${e.code} ${escape(e.title)}</h2><p>${escape(e.message)}</p></section>`)
  .join('\n')}
</body></html>`;
  return [
    route({
      method: 'get',
      path: CHAT_ERROR_REFERENCE.replace('/chat/v1', ''),
      operationId: 'getChatErrorReference',
      summary: 'The chat delivery error reference (HTML; what `href` of a delivery error links to; no token needed)',
      success: { status: 200, description: 'The reference page', contentType: 'text/html' },
      handler: (_req, res) => {
        res.type('html').send(page);
      },
    }),
  ];
}
