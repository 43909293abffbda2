import type { AnyProjection } from '../projection';
import { workflowContactsProjection } from './workflow-contacts';
import { workflowRunsProjection } from './workflow-runs';
import { workflowWaitsProjection } from './workflow-waits';
import { workflowsProjection } from './workflows';

/** The read models of the workflow feature. */
export const workflowsProjections: readonly AnyProjection[] = [
  workflowsProjection,
  workflowRunsProjection,
  workflowWaitsProjection,
  workflowContactsProjection,
];
