/**
 * Proof of control at WhatsApp's Graph API (application/providers/provider-control.ts): the access
 * token must show the phone number id, among its business account's numbers when the account names
 * one, or as a node it may read.
 */
import { ProviderUnavailableError, type ControlProof } from '../../application/providers/provider-control';
import type { WhatsAppAccount } from '../../application/ports/provider-accounts';
import type { GraphClient } from './graph-client';

export const WHATSAPP_NOT_SHOWN = 'The WhatsApp access token does not show this phone number id';
export const WHATSAPP_UNREACHABLE =
  "WhatsApp's Graph API could not be reached to check the account; nothing was changed, try again";

export function whatsappControl(graph: GraphClient) {
  return async (account: WhatsAppAccount): Promise<ControlProof> => {
    const answer = await graph.phoneNumberShown(account);
    switch (answer.outcome) {
      case 'shown':
        return { shown: true };
      case 'not_shown':
        return { shown: false, refusal: `${WHATSAPP_NOT_SHOWN} under business account ${account.businessAccountId}` };
      case 'refused': {
        const { message, code } = answer.error;
        const said = message ? ` (Graph API error${code === undefined ? '' : ` ${code}`}: ${message})` : '';
        return { shown: false, refusal: `${WHATSAPP_NOT_SHOWN}${said}` };
      }
      case 'unavailable':
        throw new ProviderUnavailableError('whatsapp', WHATSAPP_UNREACHABLE);
    }
  };
}
