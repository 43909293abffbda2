import type { AnyProjection } from '../../application/projection';

/** The read models of the webhook feature. */
export const webhooksProjections: readonly AnyProjection[] = [];
