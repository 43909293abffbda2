/**
 * Proof of control at Twilio (application/providers/provider-control.ts): the account resource
 * fetched with the credentials given (Twilio answers it only to that account's own), and a number
 * looked up among the account's incoming numbers.
 */
import { ProviderUnavailableError, type ControlProof } from '../../application/providers/provider-control';
import type { TwilioAccount } from '../../application/ports/provider-accounts';
import { TwilioRefusedError, TwilioUnavailableError, type TwilioRestClient } from './rest-client';

export const TWILIO_REFUSED_CREDENTIALS = 'Twilio refused these credentials for this account SID';
export const TWILIO_UNREACHABLE = 'Twilio could not be reached to check the account; nothing was changed, try again';

export function twilioControl(client: TwilioRestClient) {
  return {
    async account(account: TwilioAccount): Promise<ControlProof> {
      const fetched = await asked(() => client.fetchAccount(account));
      if (!('sid' in fetched)) return fetched;
      return fetched.sid === account.accountSid
        ? { shown: true }
        : { shown: false, refusal: TWILIO_REFUSED_CREDENTIALS };
    },

    async number(account: TwilioAccount, number: string): Promise<ControlProof> {
      const held = await asked(() => client.holdsNumber(account, number));
      if (typeof held !== 'boolean') return held;
      return held
        ? { shown: true }
        : { shown: false, refusal: 'Number not found among the incoming numbers of your Twilio account' };
    },
  };
}

/** Twilio's answer; a refusal (a 4xx other than 429: bad credentials, an account closed) as a proof not shown. */
async function asked<T>(ask: () => Promise<T>): Promise<T | ControlProof> {
  try {
    return await ask();
  } catch (error) {
    const throttled = error instanceof TwilioRefusedError && error.status === 429;
    if (error instanceof TwilioUnavailableError || throttled)
      throw new ProviderUnavailableError('twilio', TWILIO_UNREACHABLE);
    if (!(error instanceof TwilioRefusedError)) throw error;
    const said = error.code === null ? '' : ` (${error.message})`;
    return { shown: false, refusal: `${TWILIO_REFUSED_CREDENTIALS}${said}` };
  }
}
