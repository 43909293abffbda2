/**
 * The Twilio adapter passes the telephony contract: calls placed on the Twilio stand-in, whose signed
 * callbacks reach the Twilio webhook routes, which report through the real inbound path.
 */
import { twilioCarrier } from '../../infrastructure/twilio/twilio-carrier';
import { MemoryBlobStore } from '../../infrastructure/memory/memory-blob-store';
import { startTwilioStandIn, twilioSid } from '../support/twilio-stand-in';
import { startTwilioApp, twilioAccounts } from '../integration/twilio/twilio-app';
import { telephonyContract } from './telephony.contract';

telephonyContract('twilio', () => {
  const account = { accountSid: twilioSid('AC'), authToken: 'contract-token' };
  const accounts = twilioAccounts({ o1: account });
  let calls = 0;
  const next = () => {
    const n = calls++;
    return { callId: `call-${n}`, to: `+1415555${String(1000 + n)}` };
  };
  let outcomeFor: (to: string, outcome: 'answered' | 'busy') => void = () => {};
  return {
    organizationId: 'o1',
    async start({ commands, reports }) {
      const standIn = await startTwilioStandIn({ accounts: [account] });
      outcomeFor = standIn.outcomeFor;
      const blobs = new MemoryBlobStore();
      const app = await startTwilioApp({ accounts, commands, reports, blobs, twilioApiUrl: standIn.url });
      return {
        provider: twilioCarrier({ accounts, config: app.config }),
        settled: () => standIn.idle(),
        async stop() {
          await standIn.close();
          await app.close();
        },
      };
    },
    answered: next,
    notAnswered() {
      const call = next();
      outcomeFor(call.to, 'busy');
      return call;
    },
  };
});
