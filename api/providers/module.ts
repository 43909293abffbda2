/**
 * Providers: the organizations' accounts at real providers (Twilio, WhatsApp), their secrets kept
 * outside the event log, and `providerAccounts`, what the provider adapters and the later modules
 * read them through (application/ports/provider-accounts.ts).
 */
import { ProviderAccountService } from '../../application/providers/provider-account-service';
import { CachedProviderAccounts } from '../../application/providers/provider-accounts';
import { ReadStoreSecrets } from '../../application/providers/read-store-secrets';
import {
  providerAccountsProjection,
  type ProviderAccountDocument,
} from '../../projections/providers/provider-accounts';
import type { ModuleDefinition } from '../module';
import { providerControlOf } from './control';
import { providerRoutes } from './router';

export const providersModule: ModuleDefinition = {
  name: 'providers',
  projections: [providerAccountsProjection],
  reads: [providerAccountsProjection],
  async build({ commands, reads, env, config, provided }) {
    const accounts = await reads.collection<ProviderAccountDocument>(providerAccountsProjection.collection);
    const secrets = await ReadStoreSecrets.open(reads);
    const reader = new CachedProviderAccounts(accounts, secrets);
    provided.provide('providerAccounts', reader);
    const service = new ProviderAccountService(commands, accounts, secrets, reader, env, providerControlOf(config));
    return { routes: [{ prefix: '/api/v1', security: 'organization', routes: providerRoutes(service) }] };
  },
};
