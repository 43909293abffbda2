/**
 * The WhatsApp webhook routes mounted on a small Express app as the service mounts its public routes
 * (request ids, the route declarations, the error envelope), over a memory event store and read store
 * with the platform messages read model kept by a projection runner; plus the WhatsApp adapter talking
 * to a stand-in of the Graph API that posts its webhooks to the app.
 */
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChatPlatformReports } from '../../../application/chats/chat-platform-reports';
import type { InboundChats } from '../../../application/chats/inbound-chats';
import { CommandHandler } from '../../../application/command-handler';
import type { ProviderAccounts, WhatsAppAccount } from '../../../application/ports/provider-accounts';
import { ProjectionRunner } from '../../../application/projection-runner';
import { whatsappRoutes } from '../../../api/chats/whatsapp-router';
import { errorHandler } from '../../../api/http/errors';
import { requestId } from '../../../api/http/request-id';
import { routerOf } from '../../../api/http/route';
import { silentLogger } from '../../../infrastructure/logging/json-logger';
import { MemoryEventStore } from '../../../infrastructure/memory/memory-event-store';
import { MemoryReadStore } from '../../../infrastructure/memory/memory-read-store';
import { whatsappPlatform } from '../../../infrastructure/whatsapp/whatsapp-platform';
import { whatsappWebhooks } from '../../../infrastructure/whatsapp/whatsapp-webhooks';
import { platformMessagesProjection, type PlatformMessageDocument } from '../../../projections/chats/platform-messages';
import { startWhatsAppStandIn, type StandInFate, type WhatsAppStandIn } from '../../support/whatsapp-stand-in';

export const ORG = 'org-whatsapp';
export const ACCOUNT: WhatsAppAccount = {
  phoneNumberId: '106540352242922',
  businessAccountId: '102290129340398',
  accessToken: 'EAAG-test-access-token',
  appSecret: 'app-secret-0123456789abcdef',
  verifyToken: 'verify-token-for-org-whatsapp',
};
export const BUSINESS_NUMBER = '15550783881';

/** Organizations' WhatsApp accounts (the credentials port; the stores behind it are not under test here). */
export function accountsOf(accounts: Record<string, WhatsAppAccount>): ProviderAccounts {
  const entries = Object.entries(accounts);
  return {
    async accountOf(organizationId, alias) {
      return (alias === 'whatsapp' ? (accounts[organizationId] ?? null) : null) as never;
    },
    async byAccountId(alias, accountId) {
      if (alias !== 'whatsapp') return null;
      const found = entries.find(([, account]) => account.phoneNumberId === accountId);
      return (found ? { organizationId: found[0], account: found[1] } : null) as never;
    },
    async hasWhatsAppVerifyToken(token) {
      return entries.some(([, account]) => account.verifyToken === token);
    },
  };
}

export type WhatsAppWorld = {
  events: MemoryEventStore;
  commands: CommandHandler;
  reports: ChatPlatformReports;
  platform: ReturnType<typeof whatsappPlatform>;
  standIn: WhatsAppStandIn;
  /** The app's base URL. */
  url: string;
  webhookUrl: string;
  caughtUp(): Promise<void>;
  close(): Promise<void>;
};

export async function whatsappWorld(
  options: {
    fateOf?: (to: string) => StandInFate;
    accounts?: Record<string, WhatsAppAccount>;
    inbound?: (world: { commands: CommandHandler; reports: ChatPlatformReports }) => InboundChats;
  } = {},
): Promise<WhatsAppWorld> {
  const events = new MemoryEventStore();
  const reads = new MemoryReadStore();
  const runner = new ProjectionRunner(events, reads, [platformMessagesProjection], { pollMs: 5 });
  await runner.start();
  const commands = new CommandHandler(events);
  const reports = new ChatPlatformReports(commands);
  const accounts = accountsOf(options.accounts ?? { [ORG]: ACCOUNT });
  const caughtUp = async () => void (await runner.waitFor(await events.headPosition(), 5000));
  const standIn = await startWhatsAppStandIn({
    accessToken: ACCOUNT.accessToken,
    appSecret: ACCOUNT.appSecret,
    phoneNumberId: ACCOUNT.phoneNumberId,
    displayPhoneNumber: BUSINESS_NUMBER,
    fateOf: options.fateOf,
  });
  const platform = whatsappPlatform({
    accounts,
    config: { whatsappGraphUrl: standIn.url, whatsappGraphVersion: 'v21.0' },
    reports,
    retry: { attempts: 2, firstPauseMs: 1 },
  });
  const webhooks = whatsappWebhooks({
    accounts,
    commands,
    reports,
    platformMessages: await reads.collection<PlatformMessageDocument>(platformMessagesProjection.collection),
    inbound: options.inbound?.({ commands, reports }),
    readsCaughtUp: caughtUp,
  });
  const app = express();
  app.use(requestId);
  // The verify handshake's rate limit is tested with the service (tests/integration/security/connection-caps.test.ts).
  app.use('/chat/v1', routerOf(whatsappRoutes(webhooks, { perSecond: 1000, burst: 1000 })));
  app.use(errorHandler(silentLogger));
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const webhookUrl = `${url}/chat/v1/whatsapp/reports`;
  standIn.deliverTo(webhookUrl);
  return {
    events,
    commands,
    reports,
    platform,
    standIn,
    url,
    webhookUrl,
    caughtUp,
    async close() {
      await standIn.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runner.stop();
    },
  };
}
