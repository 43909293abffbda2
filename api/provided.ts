/**
 * The services one feature lends another, by name: what a module may `use` of the modules listed
 * before it (api/modules.ts). Read-model lookups are not here: every module has them (`deps.lookups`).
 */
import type { BlobStore } from '../application/ports/blob-store';
import type { BlacklistService } from '../application/blacklist/blacklist-service';
import type { CallPlacer } from '../application/calls/call-placer';
import type { ProviderAnswer } from '../application/inbound/inbound-simulation';
import type { ChatSending } from '../application/chats/chat-sending';
import type { CustomerService, WorkflowStarter } from '../application/customers/customer-service';
import type { NumberService } from '../application/numbers/number-service';
import type { OrganizationService } from '../application/organizations/organization-service';
import type { ProviderAccounts } from '../application/ports/provider-accounts';
import type { SpeechService } from '../application/speech/speech-service';

export type Provided = {
  organizations: OrganizationService;
  /** The organizations' accounts at real providers, with their secrets (api/providers/module.ts). */
  providerAccounts: ProviderAccounts;
  numbers: NumberService;
  blacklist: BlacklistService;
  callPlacer: CallPlacer;
  /** The built-in carrier's simulated inbound calls: a caller `from` calls `number` (docs/inbound.md). */
  inboundCalls: (call: { number: string; from: string }) => Promise<ProviderAnswer>;
  /** The built-in chat platform's simulated inbound chats: `from` writes first to `number` (docs/inbound.md). */
  inboundChats: (chat: { number: string; from: string }) => Promise<ProviderAnswer>;
  /** Where call recordings are kept (written by the carrier's calls, read by the recording routes). */
  recordings: BlobStore;
  chatSending: ChatSending;
  workflowStarter: WorkflowStarter;
  customers: CustomerService;
  /** Present in processes that serve speech. */
  speech: SpeechService;
  /** Whether an erasure is under way or unfinished (readiness: docs/privacy.md). */
  erasuresPending: () => Promise<boolean>;
  /** Whether the speech engine has warmed up (readiness). */
  speechReady: () => boolean;
  /** Which eSpeak NG build the built-in engine runs (`SPEECH_ENGINE`); absent without one. */
  speechEngineKind: () => 'native' | 'js';
  /** The OpenAPI document of every route of every module. */
  apiDescription: () => Record<string, unknown>;
};
