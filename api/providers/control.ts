/** The proof of control asked of the real providers, at the addresses the configuration names (stand-ins in tests). */
import type { ProviderControl } from '../../application/providers/provider-control';
import type { Config } from '../../infrastructure/config/config';
import { twilioControl } from '../../infrastructure/twilio/account-control';
import { twilioRestClient } from '../../infrastructure/twilio/rest-client';
import { whatsappControl } from '../../infrastructure/whatsapp/account-control';
import { graphClient } from '../../infrastructure/whatsapp/graph-client';

export function providerControlOf(
  config: Pick<Config, 'twilioApiUrl' | 'whatsappGraphUrl' | 'whatsappGraphVersion'>,
): ProviderControl {
  const twilio = twilioControl(twilioRestClient({ apiUrl: config.twilioApiUrl }));
  return {
    twilioAccount: twilio.account,
    twilioNumber: twilio.number,
    whatsappNumber: whatsappControl(
      graphClient({ baseUrl: config.whatsappGraphUrl, version: config.whatsappGraphVersion }),
    ),
  };
}
