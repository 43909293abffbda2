import type { AnyProjection } from '../projection';
import { webhookDeliveriesProjection } from './webhook-deliveries';
import { webhookSettingsProjection } from './webhook-settings';

/** The read models of the webhook feature. */
export const webhooksProjections: readonly AnyProjection[] = [webhookSettingsProjection, webhookDeliveriesProjection];
