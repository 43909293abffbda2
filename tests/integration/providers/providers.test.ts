/**
 * `/api/v1/providers`: an organization connects its Twilio and WhatsApp accounts, reads them masked,
 * and disconnects them; the secrets are in no answer, no event and no read model, only in the secret
 * store, which a reconnection and a disconnection erase. One account is one organization's, and only
 * once the provider (a local stand-in of Twilio's and of the Graph API) shows the credentials control
 * it. Numbers held at a connected Twilio account are imported (`POST /numbers/import`) and released
 * (`DELETE /numbers/{number}`); the calls and chats that go through connected accounts are in
 * real-providers.test.ts.
 */
import { CommandHandler } from '../../../application/command-handler';
import { phoneNumberDecider, phoneNumberStreamId } from '../../../domain/numbers/owned-number';
import { accountClaimStreamId } from '../../../domain/providers/account-claim';
import { CachedProviderAccounts } from '../../../application/providers/provider-accounts';
import { ReadStoreSecrets, SECRETS_COLLECTION } from '../../../application/providers/read-store-secrets';
import {
  providerAccountsProjection,
  type ProviderAccountDocument,
} from '../../../projections/providers/provider-accounts';
import { startTestService, type TestService } from '../../support/test-service';
import { startTwilioStandIn, type StandInAccount, type TwilioStandIn } from '../../support/twilio-stand-in';
import { startWhatsAppStandIn, type WhatsAppStandIn } from '../../support/whatsapp-stand-in';

type Org = { id: string; token: string };

const hex = (seed: string) => seed.repeat(32).slice(0, 32);
const twilio = (sid: string, token: string) => ({ account_sid: `AC${hex(sid)}`, auth_token: hex(token) });
const WHATSAPP = {
  phone_number_id: '1098765432101',
  business_account_id: '2098765432101',
  access_token: 'EAAGm0PX4ZCpsBAsecretaccesstoken9876',
  app_secret: hex('5e'),
  verify_token: 'verify-me-please-7391',
};

const IMPORTED = '+14155550123';
const MOVED = '+14155550145';
/** The accounts Twilio knows: each body's SID with its token (a second token of one, as Twilio's secondary). */
const TWILIO_ACCOUNTS: StandInAccount[] = [
  ['a1', 'b7'],
  ['a1', 'c9'],
  ['77', '88'],
  ['ee', 'ff'],
  ['3c', '4d', IMPORTED],
  ['5e', '6f'],
  ['b1', 'b2', MOVED],
  ['c1', 'c2'],
].map(([sid, token, ...incomingNumbers]) => {
  const { account_sid, auth_token } = twilio(sid!, token!);
  return { accountSid: account_sid, authToken: auth_token, incomingNumbers };
});

describe('provider accounts API', () => {
  let t: TestService;
  let org: Org;
  let other: Org;
  let twilioApi: TwilioStandIn;
  let graphApi: WhatsAppStandIn;
  beforeAll(async () => {
    twilioApi = await startTwilioStandIn({ accounts: TWILIO_ACCOUNTS });
    graphApi = await startWhatsAppStandIn({
      accessToken: WHATSAPP.access_token,
      appSecret: WHATSAPP.app_secret,
      phoneNumberId: WHATSAPP.phone_number_id,
      businessAccountId: WHATSAPP.business_account_id,
      displayPhoneNumber: '15550783881',
    });
    t = await startTestService({ env: { TWILIO_API_URL: twilioApi.url, WHATSAPP_GRAPH_URL: graphApi.url } });
    org = await t.newOrganization();
    other = await t.newOrganization();
  });
  afterAll(async () => {
    await t?.stop();
    await twilioApi?.close();
    await graphApi?.close();
  });

  const call = (who: Org | string | null, method: string, path: string, body?: unknown) =>
    t.request(method, `/api/v1${path}`, { token: typeof who === 'string' || who === null ? who : who.token, body });
  const allEvents = async () => t.service.events.readAll({ after: -1, maxCount: 100_000 });
  const secrets = () => ReadStoreSecrets.open(t.service.reads);
  const accountDocs = async () =>
    (await t.service.reads.collection<ProviderAccountDocument>(providerAccountsProjection.collection)).find({});
  const port = async () =>
    new CachedProviderAccounts(
      await t.service.reads.collection<ProviderAccountDocument>(providerAccountsProjection.collection),
      await secrets(),
    );

  const claimsOf = (alias: 'twilio' | 'whatsapp', accountId: string) =>
    t.service.events.readStream(accountClaimStreamId(alias, accountId));

  describe('proof of control', () => {
    it('refuses a Twilio account whose credentials Twilio refuses, claims nothing, and the owner connects it after', async () => {
      const squatter = await t.newOrganization();
      const owner = await t.newOrganization();
      const account = twilio('ee', 'ff');
      const reply = await call(squatter, 'PUT', '/providers/twilio', { ...account, auth_token: hex('12') });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({
        success: false,
        error: 'BadRequest',
        message: 'Twilio refused these credentials for this account SID (Twilio error 20003: Authenticate)',
      });
      expect((await call(squatter, 'GET', '/providers/twilio')).status).toBe(404);
      expect(await claimsOf('twilio', account.account_sid)).toEqual([]);
      expect((await call(owner, 'PUT', '/providers/twilio', account)).status).toBe(200);
      // The holder's own new credentials are checked as well: a wrong token changes nothing.
      const wrong = await call(owner, 'PUT', '/providers/twilio', { ...account, auth_token: hex('34') });
      expect(wrong.status).toBe(400);
      expect((await call(owner, 'GET', '/providers/twilio')).body.data.credentials.auth_token).toBe(
        `****${account.auth_token.slice(-4)}`,
      );
      expect((await call(owner, 'DELETE', '/providers/twilio')).status).toBe(200);
    });

    it('gives the account to an organization that shows control, from a holder whose credentials Twilio refuses', async () => {
      // The holder connected with a token Twilio accepted then (or before proof was asked) and no longer does.
      const holder = await t.newOrganization();
      const owner = await t.newOrganization();
      const account = twilio('ee', 'ff');
      const stale = { ...account, auth_token: hex('56') };
      twilioApi.addAccount({ accountSid: stale.account_sid, authToken: stale.auth_token });
      expect((await call(holder, 'PUT', '/providers/twilio', stale)).status).toBe(200);
      const [held] = (await accountDocs()).filter((d) => d.organizationId === holder.id);
      twilioApi.revoke({ accountSid: stale.account_sid, authToken: stale.auth_token });
      expect((await call(owner, 'PUT', '/providers/twilio', account)).status).toBe(200);
      expect((await call(holder, 'GET', '/providers/twilio')).status).toBe(404);
      expect(await (await secrets()).get(held!.secretRef)).toBeNull();
      expect((await (await port()).byAccountId('twilio', account.account_sid))?.organizationId).toBe(owner.id);
      const claims = await claimsOf('twilio', account.account_sid);
      expect(claims.at(-1)?.data).toMatchObject({ organizationId: owner.id, displaced: holder.id });
      // A holder whose credentials still work keeps it: 409.
      expect((await call(holder, 'PUT', '/providers/twilio', account)).status).toBe(409);
      expect((await call(owner, 'DELETE', '/providers/twilio')).status).toBe(200);
    });

    it('refuses a WhatsApp account whose token does not show the phone number id, and claims nothing', async () => {
      const squatter = await t.newOrganization();
      const refusals = [
        // Another business's number, with a token of the squatter's own.
        [{ ...WHATSAPP, access_token: 'EAAGsquattersowntoken0001' }, 'Graph API error 190: Invalid OAuth access token'],
        // A token that works, for a number id it does not show, with or without a business account id.
        [{ ...WHATSAPP, phone_number_id: '1098765432199' }, 'under business account 2098765432101'],
        [
          { ...WHATSAPP, phone_number_id: '1098765432199', business_account_id: undefined },
          "Graph API error 100: Unsupported get request. Object with ID '1098765432199' does not exist",
        ],
      ] as const;
      for (const [body, said] of refusals) {
        const reply = await call(squatter, 'PUT', '/providers/whatsapp', body);
        expect(reply.status).toBe(400);
        expect(reply.body.message).toMatch(/^The WhatsApp access token does not show this phone number id/);
        expect(reply.body.message).toContain(said);
      }
      expect((await call(squatter, 'GET', '/providers/whatsapp')).status).toBe(404);
      expect(await claimsOf('whatsapp', WHATSAPP.phone_number_id)).toEqual([]);
      expect(await claimsOf('whatsapp', '1098765432199')).toEqual([]);
    });

    it('answers 503 when the provider cannot be asked, and changes nothing', async () => {
      const fresh = await t.newOrganization();
      const claimed = (await claimsOf('twilio', twilio('ee', 'ff').account_sid)).length;
      twilioApi.outage = true;
      graphApi.outage = true;
      try {
        const twilioReply = await call(fresh, 'PUT', '/providers/twilio', twilio('ee', 'ff'));
        expect(twilioReply.status).toBe(503);
        expect(twilioReply.body).toEqual({
          success: false,
          error: 'ServiceUnavailable',
          message: 'Twilio could not be reached to check the account; nothing was changed, try again',
        });
        const whatsappReply = await call(fresh, 'PUT', '/providers/whatsapp', WHATSAPP);
        expect(whatsappReply.status).toBe(503);
        expect(whatsappReply.body.message).toBe(
          "WhatsApp's Graph API could not be reached to check the account; nothing was changed, try again",
        );
      } finally {
        twilioApi.outage = false;
        graphApi.outage = false;
      }
      expect((await call(fresh, 'GET', '/providers')).body.data).toEqual([]);
      expect(await claimsOf('twilio', twilio('ee', 'ff').account_sid)).toHaveLength(claimed);
      expect(await claimsOf('whatsapp', WHATSAPP.phone_number_id)).toEqual([]);
    });

    it('answers 503 when nothing listens at the provider', async () => {
      const away = await startTestService({
        env: { TWILIO_API_URL: 'http://127.0.0.1:1', WHATSAPP_GRAPH_URL: 'http://127.0.0.1:1' },
      });
      try {
        const fresh = await away.newOrganization();
        const reply = await away.request('PUT', '/api/v1/providers/twilio', {
          token: fresh.token,
          body: twilio('ee', 'ff'),
        });
        expect(reply.status).toBe(503);
        expect(reply.body.message).toBe(
          'Twilio could not be reached to check the account; nothing was changed, try again',
        );
        const whatsapp = await away.request('PUT', '/api/v1/providers/whatsapp', {
          token: fresh.token,
          body: WHATSAPP,
        });
        expect(whatsapp.status).toBe(503);
      } finally {
        await away.stop();
      }
    });
  });

  describe('connecting, reading and disconnecting', () => {
    const account = twilio('a1', 'b7');

    it('connects a Twilio account and answers it masked', async () => {
      const reply = await call(org, 'PUT', '/providers/twilio', account);
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({
        success: true,
        message: 'Provider connected',
        data: {
          provider: 'twilio',
          accountId: account.account_sid,
          credentials: { account_sid: account.account_sid, auth_token: `****${account.auth_token.slice(-4)}` },
          connectedAt: expect.any(String),
        },
      });
      expect((await call(org, 'GET', '/providers/twilio')).body.data).toEqual(reply.body.data);
      expect((await call(org, 'GET', '/providers')).body).toEqual({ success: true, data: [reply.body.data] });
    });

    it('keeps the secret out of every answer, event and read model, and in the secret store', async () => {
      const answers = [await call(org, 'GET', '/providers'), await call(org, 'GET', '/providers/twilio')];
      for (const answer of answers) expect(answer.text).not.toContain(account.auth_token);
      const events = (await allEvents()).filter(
        (e) => e.type.startsWith('Provider') && e.metadata.organizationId === org.id,
      );
      expect(events.map((e) => e.type)).toEqual(['ProviderAccountClaimed', 'ProviderConnected']);
      expect(JSON.stringify(await allEvents())).not.toContain(account.auth_token);
      const [doc] = (await accountDocs()).filter((d) => d.organizationId === org.id);
      expect(JSON.stringify(doc)).not.toContain(account.auth_token);
      expect(await (await secrets()).get(doc!.secretRef)).toEqual({ authToken: account.auth_token });
      expect(await (await port()).accountOf(org.id, 'twilio')).toEqual({
        accountSid: account.account_sid,
        authToken: account.auth_token,
      });
      expect(await (await port()).byAccountId('twilio', account.account_sid)).toEqual({
        organizationId: org.id,
        account: { accountSid: account.account_sid, authToken: account.auth_token },
      });
    });

    it('changes the credentials on a new PUT and erases the old secret', async () => {
      const [before] = (await accountDocs()).filter((d) => d.organizationId === org.id);
      const changed = { ...account, auth_token: hex('c9') };
      const reply = await call(org, 'PUT', '/providers/twilio', changed);
      expect(reply.status).toBe(200);
      expect(reply.body.data.credentials.auth_token).toBe(`****${hex('c9').slice(-4)}`);
      const [after] = (await accountDocs()).filter((d) => d.organizationId === org.id);
      expect(after!.secretRef).not.toBe(before!.secretRef);
      expect(await (await secrets()).get(before!.secretRef)).toBeNull();
      expect(await (await secrets()).get(after!.secretRef)).toEqual({ authToken: hex('c9') });
      expect(JSON.stringify(await allEvents())).not.toContain(hex('c9'));
    });

    it('disconnects: 404 afterwards, the secret erased, the account free for another organization', async () => {
      const [doc] = (await accountDocs()).filter((d) => d.organizationId === org.id);
      const reply = await call(org, 'DELETE', '/providers/twilio');
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ success: true, message: 'Provider disconnected' });
      expect(await (await secrets()).get(doc!.secretRef)).toBeNull();
      expect((await call(org, 'GET', '/providers/twilio')).body).toEqual({
        success: false,
        error: 'NotFound',
        message: 'Provider not connected',
      });
      expect((await call(org, 'DELETE', '/providers/twilio')).status).toBe(404);
      expect((await call(org, 'GET', '/providers')).body.data).toEqual([]);
      expect(await (await port()).accountOf(org.id, 'twilio')).toBeNull();
      // Free again: the other organization may connect it now.
      expect((await call(other, 'PUT', '/providers/twilio', account)).status).toBe(200);
      expect((await call(other, 'DELETE', '/providers/twilio')).status).toBe(200);
    });

    it('connects a WhatsApp account, masked, found by its verify token hash and by its phone number id', async () => {
      const reply = await call(org, 'PUT', '/providers/whatsapp', WHATSAPP);
      expect(reply.status).toBe(200);
      expect(reply.body.data).toEqual({
        provider: 'whatsapp',
        accountId: WHATSAPP.phone_number_id,
        credentials: {
          phone_number_id: WHATSAPP.phone_number_id,
          business_account_id: WHATSAPP.business_account_id,
          access_token: `****${WHATSAPP.access_token.slice(-4)}`,
          app_secret: `****${WHATSAPP.app_secret.slice(-4)}`,
          verify_token: `****${WHATSAPP.verify_token.slice(-4)}`,
        },
        connectedAt: expect.any(String),
      });
      const everything = JSON.stringify([await allEvents(), await accountDocs(), reply.body]);
      for (const secret of [WHATSAPP.access_token, WHATSAPP.app_secret, WHATSAPP.verify_token])
        expect(everything).not.toContain(secret);
      const accounts = await port();
      expect(await accounts.hasWhatsAppVerifyToken(WHATSAPP.verify_token)).toBe(true);
      expect(await accounts.hasWhatsAppVerifyToken('another-token')).toBe(false);
      expect(await accounts.byAccountId('whatsapp', WHATSAPP.phone_number_id)).toEqual({
        organizationId: org.id,
        account: {
          phoneNumberId: WHATSAPP.phone_number_id,
          businessAccountId: WHATSAPP.business_account_id,
          accessToken: WHATSAPP.access_token,
          appSecret: WHATSAPP.app_secret,
          verifyToken: WHATSAPP.verify_token,
        },
      });
    });
  });

  describe('refusals', () => {
    it('answers 404 for a provider the service does not know', async () => {
      for (const [method, body] of [
        ['GET', undefined],
        ['PUT', twilio('d1', 'e2')],
        ['DELETE', undefined],
      ] as const) {
        const reply = await call(org, method, '/providers/acme', body);
        expect(reply.status).toBe(404);
        expect(reply.body.message).toBe('Provider not found');
      }
    });

    it('refuses invalid bodies naming each problem', async () => {
      const twilioReply = await call(org, 'PUT', '/providers/twilio', {
        account_sid: 'AB123',
        auth_token: 'short',
        region: 'us1',
      });
      expect(twilioReply.status).toBe(400);
      expect(twilioReply.body).toEqual({
        success: false,
        message: 'Validation failed',
        errors: expect.arrayContaining([
          'account_sid must be AC followed by 32 lowercase hex digits',
          'auth_token must be 32 hex digits',
          'body must not contain region',
        ]),
      });
      const whatsappReply = await call(org, 'PUT', '/providers/whatsapp', {
        phone_number_id: '12ab',
        access_token: 'x',
        app_secret: 'not-hex',
      });
      expect(whatsappReply.status).toBe(400);
      expect(whatsappReply.body.errors).toEqual(
        expect.arrayContaining([
          'verify_token is required',
          'phone_number_id must be digits only',
          'app_secret must be 32 hex digits',
        ]),
      );
      // A Twilio body is not a WhatsApp account.
      expect((await call(org, 'PUT', '/providers/whatsapp', twilio('d1', 'e2'))).status).toBe(400);
      expect((await call(org, 'GET', '/providers/twilio')).status).toBe(404);
    });

    it('needs a token (401), providers:read to read and providers:write to change (403)', async () => {
      expect((await call(null, 'GET', '/providers')).status).toBe(401);
      const reader = await t.tokenFor(org.id, { scopes: ['providers:read'] });
      const stranger = await t.tokenFor(org.id, { scopes: ['numbers:read'] });
      expect((await call(reader, 'GET', '/providers')).status).toBe(200);
      expect((await call(reader, 'GET', '/providers/whatsapp')).status).toBe(200);
      expect((await call(reader, 'PUT', '/providers/twilio', twilio('f1', 'f2'))).status).toBe(403);
      expect((await call(reader, 'DELETE', '/providers/whatsapp')).status).toBe(403);
      expect((await call(stranger, 'GET', '/providers')).status).toBe(403);
      const writer = await t.tokenFor(org.id, { scopes: ['providers:write'] });
      expect((await call(writer, 'GET', '/providers')).status).toBe(200);
    });

    it("shows an organization none of another's accounts", async () => {
      expect((await call(other, 'GET', '/providers')).body.data).toEqual([]);
      expect((await call(other, 'GET', '/providers/whatsapp')).status).toBe(404);
      expect((await call(other, 'DELETE', '/providers/whatsapp')).status).toBe(404);
      expect((await call(org, 'GET', '/providers/whatsapp')).status).toBe(200);
    });

    it('refuses an account another organization connected (409), and keeps nothing of it', async () => {
      // Both hold working credentials of one Twilio account (its primary and secondary auth tokens).
      const taken = twilio('77', '88');
      twilioApi.addAccount({ accountSid: taken.account_sid, authToken: hex('99') });
      expect((await call(org, 'PUT', '/providers/twilio', taken)).status).toBe(200);
      const reply = await call(other, 'PUT', '/providers/twilio', { ...taken, auth_token: hex('99') });
      expect(reply.status).toBe(409);
      expect(reply.body.message).toBe('This provider account is already connected by another organization');
      expect((await call(other, 'GET', '/providers/twilio')).status).toBe(404);
      const stored = await (
        await t.service.reads.collection<{ value: Record<string, string> }>(SECRETS_COLLECTION)
      ).find({});
      expect(JSON.stringify(stored)).not.toContain(hex('99'));
      const whatsapp = await call(other, 'PUT', '/providers/whatsapp', WHATSAPP);
      expect(whatsapp.status).toBe(409);
    });
  });

  describe('importing numbers (POST /numbers/import)', () => {
    const imported = IMPORTED;
    it('fails an item whose provider is not connected, imports once it is, and answers per item', async () => {
      const fresh = await t.newOrganization();
      const first = await call(fresh, 'POST', '/numbers/import', [{ number: imported, provider: 'twilio' }]);
      expect(first.status).toBe(200);
      expect(first.body).toEqual({
        success: false,
        data: [
          {
            number: imported,
            success: false,
            error: 'Provider twilio is not connected: connect your account first (PUT /api/v1/providers/twilio)',
          },
        ],
      });
      expect((await call(fresh, 'PUT', '/providers/twilio', twilio('3c', '4d'))).status).toBe(200);
      const second = await call(fresh, 'POST', '/numbers/import', [
        { number: '+1 (415) 555-0123', provider: 'twilio', sms_enabled: false },
        { number: '+4420', provider: 'twilio' },
        { number: imported, provider: 'twilio' },
      ]);
      expect(second.body).toEqual({
        success: false,
        data: [
          { number: imported, success: true, error: null },
          { number: '+4420', success: false, error: 'Invalid number: use the E.164 form, for example +919876543210' },
          { number: imported, success: false, error: 'Duplicate number in this request' },
        ],
      });
      const number = await call(fresh, 'GET', `/numbers/${encodeURIComponent(imported)}`);
      expect(number.body.data).toEqual({
        number: imported,
        provider: 'twilio',
        country_iso: 'US',
        sms_enabled: false,
        voice_enabled: true,
        purchasedAt: expect.any(String),
        inbound: null,
        imported: true,
      });
      expect(
        (await call(fresh, 'POST', '/numbers/import', [{ number: imported, provider: 'twilio' }])).body.data,
      ).toEqual([{ number: imported, success: false, error: 'Number already owned by your organization' }]);
      // Another organization, its own Twilio account connected, cannot take it.
      const rival = await t.newOrganization();
      expect((await call(rival, 'PUT', '/providers/twilio', twilio('5e', '6f'))).status).toBe(200);
      expect(
        (await call(rival, 'POST', '/numbers/import', [{ number: imported, provider: 'twilio' }])).body.data,
      ).toEqual([{ number: imported, success: false, error: 'Number already owned by another organization' }]);
      expect((await call(rival, 'GET', `/numbers/${encodeURIComponent(imported)}`)).status).toBe(404);
      // Another organization may not release it; its owner may, and the number is then free.
      const path = `/numbers/${encodeURIComponent(imported)}`;
      expect((await call(rival, 'DELETE', path)).body).toEqual({
        success: false,
        error: 'NotFound',
        message: 'Number not found',
      });
      expect((await call(fresh, 'DELETE', path)).body).toEqual({ success: true, message: 'Number released' });
      expect((await call(fresh, 'GET', path)).status).toBe(404);
      expect((await call(fresh, 'DELETE', path)).status).toBe(404);
      // Moved to the rival's Twilio account, it is the rival's to import now.
      TWILIO_ACCOUNTS.find((a) => a.accountSid === twilio('5e', '6f').account_sid)!.incomingNumbers!.push(imported);
      expect(
        (await call(rival, 'POST', '/numbers/import', [{ number: imported, provider: 'twilio' }])).body.data,
      ).toEqual([{ number: imported, success: true, error: null }]);
      expect((await call(rival, 'GET', path)).body.data).toMatchObject({ number: imported, imported: true });
    });

    it("refuses a number the account's Twilio does not hold, and a number of the service's stock", async () => {
      const holder = await t.newOrganization();
      expect((await call(holder, 'PUT', '/providers/twilio', twilio('a1', 'b7'))).status).toBe(200);
      const stocked = (await call(holder, 'GET', '/numbers/search?country_iso=US&limit=1')).body.data[0].number;
      const reply = await call(holder, 'POST', '/numbers/import', [
        { number: '+14155550177', provider: 'twilio' },
        { number: stocked, provider: 'twilio' },
      ]);
      expect(reply.body).toEqual({
        success: false,
        data: [
          {
            number: '+14155550177',
            success: false,
            error: 'Number not found among the incoming numbers of your Twilio account',
          },
          {
            number: stocked,
            success: false,
            error:
              'Number is offered by the builtin provider: buy it (POST /api/v1/numbers/buyNumbers), it cannot be imported',
          },
        ],
      });
      expect((await call(holder, 'GET', '/numbers')).body.data).toEqual([]);
      // Still in stock: another organization buys it.
      const buyer = await t.newOrganization();
      const bought = await call(buyer, 'POST', '/numbers/buyNumbers', [{ number: stocked, provider: 'builtin' }]);
      expect(bought.body).toEqual({ success: true, data: [{ number: stocked, success: true, error: null }] });
      // Released, a bought number is back in stock for anyone to buy.
      const path = `/numbers/${encodeURIComponent(stocked)}`;
      expect((await call(buyer, 'DELETE', path)).status).toBe(200);
      const found = await call(holder, 'GET', `/numbers/search?country_iso=US&prefix=${stocked.slice(2, 8)}`);
      expect(found.body.data.map((n: { number: string }) => n.number)).toContain(stocked);
      expect(
        (await call(holder, 'POST', '/numbers/buyNumbers', [{ number: stocked, provider: 'builtin' }])).body.success,
      ).toBe(true);
      expect((await call(holder, 'DELETE', '/providers/twilio')).status).toBe(200);
    });

    it('takes a number from an importer whose own Twilio account no longer holds it', async () => {
      const before = await t.newOrganization();
      const after = await t.newOrganization();
      expect((await call(before, 'PUT', '/providers/twilio', twilio('b1', 'b2'))).status).toBe(200);
      expect((await call(after, 'PUT', '/providers/twilio', twilio('c1', 'c2'))).status).toBe(200);
      const importing = [{ number: MOVED, provider: 'twilio' }];
      expect((await call(before, 'POST', '/numbers/import', importing)).body.success).toBe(true);
      // Still the first account's: the second cannot show it held.
      expect((await call(after, 'POST', '/numbers/import', importing)).body.data[0].error).toBe(
        'Number already owned by another organization',
      );
      const accountOf = (sid: string) => TWILIO_ACCOUNTS.find((a) => a.accountSid === twilio(sid, '00').account_sid)!;
      accountOf('b1').incomingNumbers = [];
      accountOf('c1').incomingNumbers!.push(MOVED);
      expect((await call(after, 'POST', '/numbers/import', importing)).body).toEqual({
        success: true,
        data: [{ number: MOVED, success: true, error: null }],
      });
      const path = `/numbers/${encodeURIComponent(MOVED)}`;
      expect((await call(before, 'GET', path)).status).toBe(404);
      expect((await call(after, 'GET', path)).body.data).toMatchObject({ number: MOVED, imported: true });
      const [, taken] = await t.service.events.readStream(phoneNumberStreamId(MOVED));
      expect(taken?.data).toMatchObject({ organizationId: after.id, displaced: before.id });
    });

    it('sells a stocked number an organization imported before imports were checked', async () => {
      const squatter = await t.newOrganization();
      const buyer = await t.newOrganization();
      const [stocked] = (await call(buyer, 'GET', '/numbers/search?country_iso=US&limit=1')).body.data;
      // What an import of a stocked number recorded before the provider was asked.
      const recorded = await new CommandHandler(t.service.events).handle(
        phoneNumberDecider,
        phoneNumberStreamId(stocked.number),
        {
          type: 'ImportNumber',
          number: stocked.number,
          country_iso: 'US',
          sms_enabled: true,
          voice_enabled: true,
          provider: 'twilio',
          organizationId: squatter.id,
          providerConnected: true,
          refusal: null,
          stockedBy: null,
          at: new Date().toISOString(),
        },
        { organizationId: squatter.id, actor: 'test', requestId: 'legacy-import' },
      );
      await t.service.runner.waitFor(recorded.position, 5_000);
      const path = `/numbers/${encodeURIComponent(stocked.number)}`;
      expect((await call(squatter, 'GET', path)).status).toBe(200);
      const bought = await call(buyer, 'POST', '/numbers/buyNumbers', [
        { number: stocked.number, provider: 'builtin' },
      ]);
      expect(bought.body).toEqual({ success: true, data: [{ number: stocked.number, success: true, error: null }] });
      expect((await call(squatter, 'GET', path)).status).toBe(404);
      expect((await call(buyer, 'GET', path)).body.data).toMatchObject({ provider: 'builtin' });
      expect((await call(buyer, 'GET', path)).body.data.imported).toBeUndefined();
    });

    it('answers 503 with nothing imported when Twilio cannot be asked', async () => {
      const holder = await t.newOrganization();
      expect((await call(holder, 'PUT', '/providers/twilio', twilio('a1', 'b7'))).status).toBe(200);
      twilioApi.outage = true;
      try {
        const reply = await call(holder, 'POST', '/numbers/import', [{ number: '+14155550188', provider: 'twilio' }]);
        expect(reply.status).toBe(503);
        expect(reply.body.error).toBe('ServiceUnavailable');
      } finally {
        twilioApi.outage = false;
      }
      expect((await call(holder, 'GET', '/numbers')).body.data).toEqual([]);
      expect((await call(holder, 'DELETE', '/providers/twilio')).status).toBe(200);
    });

    it('refuses a provider numbers are not imported from, and needs numbers:write', async () => {
      const reply = await call(org, 'POST', '/numbers/import', [{ number: '+14155550999', provider: 'builtin' }]);
      expect(reply.status).toBe(400);
      expect(reply.body.errors).toEqual(['[0].provider must be one of twilio']);
      const reader = await t.tokenFor(org.id, { scopes: ['numbers:read'] });
      expect(
        (await call(reader, 'POST', '/numbers/import', [{ number: '+14155550999', provider: 'twilio' }])).status,
      ).toBe(403);
    });
  });
});
