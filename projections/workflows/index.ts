import type { AnyProjection } from '../../application/projection';

/** The read models of the workflow feature. */
export const workflowsProjections: readonly AnyProjection[] = [];
