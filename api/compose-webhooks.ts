/**
 * The outbound webhooks part of the composition root: the organization's webhook settings and the
 * deliveries of final call and chat log entries, with their retries.
 */
import type { CallsDeps } from './compose-calls';
import { emptyFeature, type Feature } from './feature';

export type Webhooks = { feature: Feature };

export async function composeWebhooks(_deps: CallsDeps): Promise<Webhooks> {
  // Transitional until the webhook feature is composed here.
  return { feature: emptyFeature() };
}
