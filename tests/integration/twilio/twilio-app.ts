/**
 * Twilio's webhook routes on a small Express app, as the service mounts a public group under
 * `/carrier/v1` (request ids, the routes, the error envelope), listening on a local port whose address
 * is the service's PUBLIC_URL; and the organizations' Twilio accounts, as the provider accounts port
 * hands them out.
 */
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type {
  ProviderAccounts,
  ProviderAccountsByAlias,
  ProviderAlias,
  TwilioAccount,
} from '../../../application/ports/provider-accounts';
import { twilioRoutes } from '../../../api/carrier/twilio-router';
import { errorHandler } from '../../../api/http/errors';
import { requestId } from '../../../api/http/request-id';
import { routerOf } from '../../../api/http/route';
import { silentLogger } from '../../../infrastructure/logging/json-logger';
import type { TwilioConfig } from '../../../infrastructure/twilio/twilio-carrier';
import type { TwilioWebhookDeps } from '../../../infrastructure/twilio/webhooks';

/** The Twilio accounts of organizations, by organization id. */
export function twilioAccounts(byOrganization: Record<string, TwilioAccount>): ProviderAccounts {
  const entries = Object.entries(byOrganization);
  return {
    async accountOf<A extends ProviderAlias>(organizationId: string, alias: A) {
      return (alias === 'twilio' ? (byOrganization[organizationId] ?? null) : null) as
        ProviderAccountsByAlias[A] | null;
    },
    async byAccountId<A extends ProviderAlias>(alias: A, accountId: string) {
      const found = alias === 'twilio' ? entries.find(([, a]) => a.accountSid === accountId) : undefined;
      return found ? { organizationId: found[0], account: found[1] as ProviderAccountsByAlias[A] } : null;
    },
    hasWhatsAppVerifyToken: async () => false,
  };
}

export type TwilioApp = { url: string; config: TwilioConfig; close(): Promise<void> };

/** Listens with the routes of `deps` (whose `config.publicUrl` is set to the app's address). */
export async function startTwilioApp(
  deps: Omit<TwilioWebhookDeps, 'config'> & { twilioApiUrl: string },
): Promise<TwilioApp> {
  const config: TwilioConfig = { publicUrl: null, twilioApiUrl: deps.twilioApiUrl };
  const app = express();
  app.use(requestId);
  app.use('/carrier/v1', routerOf(twilioRoutes({ ...deps, config })));
  app.use(errorHandler(silentLogger));
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  config.publicUrl = url;
  return {
    url,
    config,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
