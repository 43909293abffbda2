/**
 * Whether a media stream may speak in a call, and what it says. Twilio names the call only in the
 * stream's `start` (our `callId` parameter and the account), so the handshake's X-Twilio-Signature is
 * checked then, with the auth token of the account of the call's organization: the call must exist,
 * still be going, and belong to the organization whose Twilio account opened the stream.
 *
 * The agent says its greeting, then its lines, filled from the customer's record as the built-in
 * carrier fills them; the call's language and the agent's voice speak them.
 */
import type { CommandHandler } from '../../../application/command-handler';
import type { Lookups } from '../../../application/lookups';
import type { ProviderAccounts } from '../../../application/ports/provider-accounts';
import { callDecider, callStreamId, FINAL_CALL_STATUSES } from '../../../domain/calls/call';
import { languageCodes, type LanguageCode } from '../../../domain/shared/languages';
import { fillTemplate } from '../../../domain/shared/placeholders';
import type { StartMessage } from './messages';
import { isTwilioSignatureValid } from '../signature';

export type StreamScript = { callId: string; lines: string[]; voiceId: string; language: LanguageCode };

/** `refused`: why the stream is closed (policy violation) instead of speaking. */
export type Admission = { admitted: StreamScript } | { refused: string };

export type AdmissionDeps = {
  commands: Pick<CommandHandler, 'load'>;
  lookups: Pick<Lookups, 'agent' | 'customer'>;
  accounts: Pick<ProviderAccounts, 'accountOf'>;
};

/** What the handshake carried: the URL Twilio requested (as it signed it) and its X-Twilio-Signature. */
export type Handshake = { url: string; signature: string | undefined };

/** Said of every stream not proven to come from the call's account: a guess learns nothing of which calls exist. */
const NOT_AUTHORIZED = 'not authorized';

export async function admitStream(deps: AdmissionDeps, start: StartMessage, handshake: Handshake): Promise<Admission> {
  const callId = start.start.customParameters?.callId;
  if (!callId) return { refused: 'no callId parameter' };
  const { state: call } = await deps.commands.load(callDecider, callStreamId(callId));
  if (call.status === 'none') return { refused: NOT_AUTHORIZED };
  const [account, agent, customer] = await Promise.all([
    deps.accounts.accountOf(call.organizationId, 'twilio'),
    deps.lookups.agent(call.organizationId, call.agentId),
    call.customerKey === '' ? null : deps.lookups.customer(call.organizationId, call.campaignId, call.customerKey),
  ]);
  if (!account || account.accountSid !== start.start.accountSid) return { refused: NOT_AUTHORIZED };
  if (!isTwilioSignatureValid(account.authToken, handshake.url, [], handshake.signature))
    return { refused: NOT_AUTHORIZED };
  if (call.dialedBy === null) return { refused: 'call not dialed' };
  if (FINAL_CALL_STATUSES.includes(call.status)) return { refused: 'call ended' };
  if (!agent) return { refused: 'agent not found' };
  const language = languageCodes.find((code) => code === call.language) ?? agent.language ?? 'en';
  const record = {
    name: [customer?.first_name, customer?.last_name].filter((part) => typeof part === 'string' && part).join(' '),
    ...customer,
    agent_name: agent.name,
  };
  const lines = [...(agent.greeting ? [agent.greeting] : []), ...agent.lines]
    .map((template) => fillTemplate(template, record).trim())
    .filter((line) => line !== '');
  return { admitted: { callId, lines, voiceId: agent.voiceId, language } };
}
