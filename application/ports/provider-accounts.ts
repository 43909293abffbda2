/**
 * The organizations' accounts at real providers (`PUT /api/v1/providers/{alias}`), with their secrets,
 * as the provider adapters need them: to call the provider's API for an organization, and to find the
 * organization a webhook is for (by the account it names) and check its signature. The secrets are kept
 * outside the event log (docs/providers.md); events and reads show them masked.
 */

/** Twilio: the account SID (`AC` and 32 hex digits) and its auth token (REST API basic auth, X-Twilio-Signature). */
export type TwilioAccount = { accountSid: string; authToken: string };

/**
 * WhatsApp Cloud API: the business phone number's id (messages are sent from it, webhooks name it), the
 * business account's id, the access token (Graph API bearer), the app secret (X-Hub-Signature-256) and
 * the verify token of the webhook subscription handshake.
 */
export type WhatsAppAccount = {
  phoneNumberId: string;
  businessAccountId: string | null;
  accessToken: string;
  appSecret: string;
  verifyToken: string;
};

export type ProviderAccountsByAlias = { twilio: TwilioAccount; whatsapp: WhatsAppAccount };
export type ProviderAlias = keyof ProviderAccountsByAlias;
export const PROVIDER_ALIASES: readonly ProviderAlias[] = ['twilio', 'whatsapp'];

export interface ProviderAccounts {
  /** The organization's account at `alias`, with its secrets; null when it connected none. */
  accountOf<A extends ProviderAlias>(organizationId: string, alias: A): Promise<ProviderAccountsByAlias[A] | null>;
  /**
   * The organization whose account at `alias` has this id (Twilio's `AccountSid`, WhatsApp's
   * `phone_number_id`), with the account; null when none has.
   */
  byAccountId<A extends ProviderAlias>(
    alias: A,
    accountId: string,
  ): Promise<{ organizationId: string; account: ProviderAccountsByAlias[A] } | null>;
  /** Whether an organization's WhatsApp account has this verify token (the webhook subscription handshake). */
  hasWhatsAppVerifyToken(token: string): Promise<boolean>;
}
