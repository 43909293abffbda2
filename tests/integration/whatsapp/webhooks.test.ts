/**
 * The WhatsApp webhook routes and adapter against a stand-in of the Graph API (docs: the Cloud API's
 * messages endpoint and webhooks): the subscription handshake, the signature every payload must carry
 * (for every organization it names), retried webhooks changing nothing, customers writing first and
 * answering, and the Graph API's refusals failing the message with WhatsApp's own error object.
 */
import { chatDispatcher } from '../../../application/chats/chat-dispatcher';
import { chatStreamId } from '../../../application/chats/chat-sending';
import { InboundChats } from '../../../application/chats/inbound-chats';
import type { ChatSendRequest } from '../../../application/ports/chat-platform';
import type { RecordedEvent } from '../../../application/ports/event-store';
import { derivedId } from '../../../application/derived-id';
import { chatDecider } from '../../../domain/chats/chat';
import { phoneNumberDecider, phoneNumberStreamId } from '../../../domain/numbers/owned-number';
import { signatureOf } from '../../../infrastructure/whatsapp/signature';
import { WHATSAPP_ERROR_CODES_URL } from '../../../infrastructure/whatsapp/graph-errors';
import { whatsappPlatform } from '../../../infrastructure/whatsapp/whatsapp-platform';
import { chatTarget } from '../../support/chats';
import { ACCOUNT, BUSINESS_NUMBER, ORG, accountsOf, whatsappWorld, type WhatsAppWorld } from './webhook-app';

jest.setTimeout(30_000);

const FORBIDDEN = { success: false, error: 'Forbidden' };
const lookups = {
  organizationType: async () => 'collection' as const,
  customer: async (_org: string, _campaign: string, key: string) => ({ loan_id: key, first_name: 'Asha' }),
  agent: async () => ({ name: 'Priya' }),
  dispositions: async () => [],
};

describe('WhatsApp webhooks', () => {
  let w: WhatsAppWorld;
  beforeEach(async () => {
    w = await whatsappWorld({
      fateOf: (to) => (({ '2': 'replied', '3': 'failed' }) as const)[to.at(-1) ?? ''] ?? 'read',
      inbound: ({ commands, reports }) =>
        new InboundChats({
          commands,
          reports,
          player: 'test',
          lookups: { ...lookups, customersByPhone: async () => [] },
        }),
    });
  });
  afterEach(() => w.close());

  const stream = (messageId: string): Promise<RecordedEvent[]> => w.events.readStream(chatStreamId(messageId));
  const types = async (messageId: string) => (await stream(messageId)).map((e) => e.type);
  const post = (body: string, signature: string | undefined) =>
    fetch(w.webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(signature && { 'x-hub-signature-256': signature }) },
      body,
    });
  const statusPayload = (phoneNumberIds: readonly string[], wamid: string, messageId: string) =>
    JSON.stringify({
      object: 'whatsapp_business_account',
      entry: phoneNumberIds.map((id) => ({
        id: 'waba',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: BUSINESS_NUMBER, phone_number_id: id },
              statuses: [
                {
                  id: wamid,
                  status: 'delivered',
                  timestamp: '1750857384',
                  recipient_id: '919800000001',
                  biz_opaque_callback_data: messageId,
                },
              ],
            },
          },
        ],
      })),
    });

  /** A message requested and sent through the chat dispatcher, its webhooks played. */
  async function send(messageId: string, to: string, extra: Partial<ChatSendRequest> = {}): Promise<void> {
    await w.commands.handle(
      chatDecider,
      chatStreamId(messageId),
      { type: 'RequestChat', messageId, at: new Date().toISOString(), ...chatTarget({ organizationId: ORG, to }) },
      { organizationId: ORG, actor: 'tester', requestId: `r-${messageId}` },
    );
    const platform = { alias: w.platform.alias, send: (r: ChatSendRequest) => w.platform.send({ ...r, ...extra }) };
    const dispatcher = chatDispatcher({
      commands: w.commands,
      platform,
      reports: w.reports,
      lookups: { ...lookups, agent: async () => null },
      now: () => new Date(),
      player: 'test',
    });
    await dispatcher.handle((await stream(messageId))[0]!);
    await w.standIn.idle();
  }

  describe('subscription handshake', () => {
    const verify = (query: string) => fetch(`${w.webhookUrl}?${query}`);

    it('answers the challenge as text to an organization verify token', async () => {
      const reply = await verify(`hub.mode=subscribe&hub.verify_token=${ACCOUNT.verifyToken}&hub.challenge=1158201444`);
      expect(reply.status).toBe(200);
      expect(reply.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await reply.text()).toBe('1158201444');
    });

    it('refuses a wrong or missing token, or another mode, with 403', async () => {
      for (const query of [
        'hub.mode=subscribe&hub.verify_token=wrong&hub.challenge=1',
        'hub.mode=subscribe&hub.challenge=1',
        `hub.mode=unsubscribe&hub.verify_token=${ACCOUNT.verifyToken}&hub.challenge=1`,
      ]) {
        const reply = await verify(query);
        expect(reply.status).toBe(403);
        expect(await reply.json()).toMatchObject(FORBIDDEN);
      }
    });
  });

  describe('signatures', () => {
    it('takes a payload signed with the app secret, and a replay of it changes nothing', async () => {
      await send('m-read', '+919800000001');
      const wamid = (await stream('m-read')).find((e) => e.type === 'ChatAccepted')!.data as { platformMsgId: string };
      const body = statusPayload([ACCOUNT.phoneNumberId], wamid.platformMsgId, 'm-read');
      const before = await types('m-read');
      for (let i = 0; i < 2; i++) {
        const reply = await post(body, signatureOf(ACCOUNT.appSecret, body));
        expect(reply.status).toBe(200);
        expect(await reply.json()).toEqual({ success: true });
      }
      expect(await types('m-read')).toEqual(before);
    });

    it('refuses a tampered body, another secret or no signature with 403, recording nothing', async () => {
      await w.commands.handle(
        chatDecider,
        chatStreamId('m-quiet'),
        {
          type: 'RequestChat',
          messageId: 'm-quiet',
          at: new Date().toISOString(),
          ...chatTarget({ organizationId: ORG }),
        },
        { organizationId: ORG, actor: 'tester', requestId: 'r' },
      );
      await w.commands.handle(
        chatDecider,
        chatStreamId('m-quiet'),
        {
          type: 'DispatchChat',
          provider: 'whatsapp',
          at: new Date().toISOString(),
          blacklist: { listed: false, revision: -1 },
        },
        { organizationId: ORG, actor: 'tester', requestId: 'r' },
      );
      const before = await types('m-quiet');
      const body = statusPayload([ACCOUNT.phoneNumberId], 'wamid.quiet', 'm-quiet');
      const signature = signatureOf(ACCOUNT.appSecret, body);
      for (const [sent, signed] of [
        [body.replace('delivered', 'read'), signature],
        [body, signatureOf('another-secret', body)],
        [body, undefined],
        [body, 'sha256=00'],
      ] as const) {
        const reply = await post(sent, signed);
        expect(reply.status).toBe(403);
        expect(await reply.json()).toMatchObject(FORBIDDEN);
      }
      expect(await types('m-quiet')).toEqual(before);
      // The same payload, signed: the message moves.
      expect((await post(body, signature)).status).toBe(200);
      expect(await types('m-quiet')).toEqual([...before, 'ChatAccepted', 'ChatDelivered']);
    });

    it('refuses a payload naming a business number nobody connected', async () => {
      const body = statusPayload(['999999999'], 'wamid.x', 'm-x');
      expect((await post(body, signatureOf(ACCOUNT.appSecret, body))).status).toBe(403);
    });

    it('refuses a batch naming several numbers unless the signature holds for each of their organizations', async () => {
      await w.close();
      const other = { ...ACCOUNT, phoneNumberId: '200000000000001', appSecret: 'other-app-secret', verifyToken: 'v2' };
      w = await whatsappWorld({ accounts: { [ORG]: ACCOUNT, 'org-other': other } });
      const both = statusPayload([ACCOUNT.phoneNumberId, other.phoneNumberId], 'wamid.y', 'm-y');
      expect((await post(both, signatureOf(ACCOUNT.appSecret, both))).status).toBe(403);
      expect((await post(both, signatureOf(other.appSecret, both))).status).toBe(403);
      // Organizations on the same Meta app share its secret: the batch is taken.
      await w.close();
      w = await whatsappWorld({
        accounts: { [ORG]: ACCOUNT, 'org-other': { ...other, appSecret: ACCOUNT.appSecret } },
      });
      expect((await post(both, signatureOf(ACCOUNT.appSecret, both))).status).toBe(200);
    });

    it('answers 400 to a body that is no WhatsApp payload', async () => {
      expect((await post('not json', signatureOf(ACCOUNT.appSecret, 'not json'))).status).toBe(400);
      const other = JSON.stringify({ object: 'page', entry: [] });
      expect((await post(other, signatureOf(ACCOUNT.appSecret, other))).status).toBe(400);
    });
  });

  describe('customers writing', () => {
    async function ownNumberWithInboundAgent(): Promise<void> {
      const context = { organizationId: ORG, actor: 'tester', requestId: 'r-number' };
      const at = new Date().toISOString();
      const number = `+${BUSINESS_NUMBER}`;
      const stream = phoneNumberStreamId(number);
      await w.commands.handle(
        phoneNumberDecider,
        stream,
        {
          type: 'ImportNumber',
          providerConnected: true,
          refusal: null,
          stockedBy: null,
          provider: 'whatsapp',
          organizationId: ORG,
          at,
          number,
          country_iso: 'US',
          sms_enabled: true,
          voice_enabled: false,
        },
        context,
      );
      await w.commands.handle(
        phoneNumberDecider,
        stream,
        {
          type: 'SetInboundRouting',
          organizationId: ORG,
          at,
          agentKnown: true,
          dispositionKnown: true,
          agentId: 'a1',
          dispositionId: 'd1',
        },
        context,
      );
    }

    it('records a reply on the open chat with the customer once, its WhatsApp id as the entry id', async () => {
      await send('m-replied', '+919800000002');
      const replies = (await stream('m-replied')).filter((e) => e.type === 'ChatMessageAdded');
      expect(replies).toHaveLength(1);
      const reply = replies[0]!.data as { entryId: string; role: string; content: string };
      expect(reply).toMatchObject({ role: 'user', content: 'Yes, I will pay on Friday.' });
      expect(reply.entryId).toMatch(/^wamid\./);
      // Another message from the customer joins the same chat.
      await w.standIn.customerWrites('919800000002', 'Friday morning.');
      await w.standIn.idle();
      const contents = (await stream('m-replied'))
        .filter((e) => e.type === 'ChatMessageAdded')
        .map((e) => (e.data as { content: string }).content);
      expect(contents).toEqual(['Yes, I will pay on Friday.', 'Friday morning.']);
    });

    it("offers a customer's first message as an inbound chat, once, and records what follows on it", async () => {
      await ownNumberWithInboundAgent();
      const id = await w.standIn.customerWrites('14155550100', 'Hello, is this the bank?');
      await w.standIn.idle();
      const messageId = derivedId('whatsapp-inbound', id);
      const received = (await stream(messageId)).find((e) => e.type === 'ChatReceived');
      expect(received?.data).toMatchObject({
        provider: 'whatsapp',
        from: '+14155550100',
        to: `+${BUSINESS_NUMBER}`,
        content: 'Hello, is this the bank?',
        organizationId: ORG,
      });
      const before = await types(messageId);
      await w.standIn.replay(id);
      await w.standIn.idle();
      expect(await types(messageId)).toEqual(before);
      await w.standIn.customerWrites('14155550100', 'I want to pay my EMI.');
      await w.standIn.idle();
      expect((await stream(messageId)).filter((e) => e.type === 'ChatMessageAdded').map((e) => e.data)).toMatchObject([
        { role: 'user', content: 'I want to pay my EMI.' },
      ]);
      expect(w.standIn.webhooks.flatMap((h) => h.answers)).toEqual([200, 200, 200]);
    });

    it('passes by a first message to a number without an inbound agent, recording nothing', async () => {
      const id = await w.standIn.customerWrites('14155550101', 'Hi');
      await w.standIn.idle();
      expect(await stream(derivedId('whatsapp-inbound', id))).toEqual([]);
      expect(w.standIn.webhooks[0]!.answers).toEqual([200]);
    });
  });

  describe('sending', () => {
    it('sends the template a request names, with its body parameters, and plain text without one', async () => {
      await send('m-template', '+919800000001', {
        template: { name: 'emi_reminder', parameters: ['Asha', '5,000'] },
        templateLanguage: 'hi',
      });
      await send('m-text', '+919800000011');
      expect(w.standIn.requests.map((r) => r.status)).toEqual([200, 200]);
      const [template, text] = w.standIn.requests;
      expect(template!.sent).toEqual({
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: '919800000001',
        type: 'template',
        template: {
          name: 'emi_reminder',
          language: { code: 'hi' },
          components: [
            {
              type: 'body',
              parameters: [
                { type: 'text', text: 'Asha' },
                { type: 'text', text: '5,000' },
              ],
            },
          ],
        },
        biz_opaque_callback_data: 'm-template',
      });
      expect(template!.answer).toMatchObject({ messages: [{ id: expect.stringMatching(/^wamid\./) }] });
      expect(text!.sent).toEqual({
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: '919800000011',
        type: 'text',
        text: { body: chatTarget().content, preview_url: false },
        biz_opaque_callback_data: 'm-text',
      });
      expect(text!.answer).toMatchObject({ contacts: [{ input: '919800000011', wa_id: '919800000011' }] });
      // The platform's id is the wamid WhatsApp answered.
      const accepted = (await stream('m-text')).find((e) => e.type === 'ChatAccepted')!.data;
      expect(accepted).toMatchObject({
        platformMsgId: (text!.answer as { messages: { id: string }[] }).messages[0]!.id,
      });
    });

    it("fails a message WhatsApp refuses with WhatsApp's error object", async () => {
      await send('m-invalid', 'not-a-number');
      const failed = (await stream('m-invalid')).find((e) => e.type === 'ChatFailed')!.data as { errors: unknown[] };
      expect(failed.errors).toEqual([
        {
          code: 100,
          title: '(#100) Invalid parameter',
          message: '(#100) Invalid parameter',
          href: WHATSAPP_ERROR_CODES_URL,
          error_data: { details: 'The parameter to is not a valid WhatsApp phone number: "".' },
        },
      ]);
      expect(await types('m-invalid')).toEqual(['ChatRequested', 'ChatDispatched', 'ChatFailed', 'ChatEnded']);
    });

    it('fails a message sent with a token WhatsApp does not take (code 190)', async () => {
      const wrongToken = whatsappPlatform({
        accounts: accountsOf({ [ORG]: { ...ACCOUNT, accessToken: 'expired' } }),
        config: { whatsappGraphUrl: w.standIn.url, whatsappGraphVersion: 'v21.0' },
        reports: w.reports,
      });
      await w.commands.handle(
        chatDecider,
        chatStreamId('m-token'),
        {
          type: 'RequestChat',
          messageId: 'm-token',
          at: new Date().toISOString(),
          ...chatTarget({ organizationId: ORG }),
        },
        { organizationId: ORG, actor: 'tester', requestId: 'r' },
      );
      await chatDispatcher({
        commands: w.commands,
        platform: wrongToken,
        reports: w.reports,
        lookups,
        now: () => new Date(),
        player: 'test',
      }).handle((await stream('m-token'))[0]!);
      const failed = (await stream('m-token')).find((e) => e.type === 'ChatFailed')!.data as { errors: unknown[] };
      expect(failed.errors).toMatchObject([
        { code: 190, title: 'Invalid OAuth access token - Cannot parse access token' },
      ]);
    });

    it('tries a send again while the Graph API is away, and takes the message once it answers', async () => {
      const answers = [503, 429, 200];
      const tried: number[] = [];
      const flaky: typeof fetch = async (input, init) => {
        const status = answers[tried.length]!;
        tried.push(status);
        if (status === 200) return fetch(input, init);
        return new Response(JSON.stringify({ error: { message: 'Service temporarily unavailable', code: 2 } }), {
          status,
        });
      };
      const platform = whatsappPlatform({
        accounts: accountsOf({ [ORG]: ACCOUNT }),
        config: { whatsappGraphUrl: w.standIn.url, whatsappGraphVersion: 'v21.0' },
        reports: w.reports,
        fetch: flaky,
        pause: async () => undefined,
      });
      const request = { messageId: 'm-flaky', organizationId: ORG, to: '+919800000001', content: 'Hi' };
      const { platformMsgId } = await platform.send(request as ChatSendRequest);
      expect(platformMsgId).toMatch(/^wamid\./);
      expect(tried).toEqual([503, 429, 200]);
    });

    it('gives up when the Graph API stays away, without failing the message itself', async () => {
      const platform = whatsappPlatform({
        accounts: accountsOf({ [ORG]: ACCOUNT }),
        config: { whatsappGraphUrl: 'http://127.0.0.1:9', whatsappGraphVersion: 'v21.0' },
        reports: w.reports,
        retry: { attempts: 3, firstPauseMs: 1 },
      });
      const request = { messageId: 'm-away', organizationId: ORG, to: '+919800000001', content: 'Hi' };
      await expect(platform.send(request as ChatSendRequest)).rejects.toThrow(/WhatsApp is unavailable/);
      expect(await stream('m-away')).toEqual([]);
    });
  });
});
