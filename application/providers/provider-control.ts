/**
 * Proof that the caller controls what it claims at a provider, asked of the provider before the claim
 * is decided: a Twilio account's credentials work for its SID, a WhatsApp access token reaches its
 * phone number id, a number is among a Twilio account's incoming numbers. The answer goes into the
 * command; the decider refuses a claim without proof.
 */
import type { TwilioAccount, WhatsAppAccount } from '../ports/provider-accounts';

/** What the provider showed: control, or why not, in words for the caller. */
export type ControlProof = { shown: true } | { shown: false; refusal: string };

/** The provider could not be asked (no answer, 5xx, throttled): nothing was claimed, the caller may try again. */
export class ProviderUnavailableError extends Error {
  constructor(
    readonly provider: string,
    message: string,
  ) {
    super(message);
    this.name = 'ProviderUnavailableError';
  }
}

export type ProviderControl = {
  twilioAccount(account: TwilioAccount): Promise<ControlProof>;
  whatsappNumber(account: WhatsAppAccount): Promise<ControlProof>;
  /** Whether `number` (E.164) is one of the Twilio account's incoming numbers. */
  twilioNumber(account: TwilioAccount, number: string): Promise<ControlProof>;
};
