import type { AnyProjection } from './projection';
import { agentsProjection } from './agents/agents';
import { blacklistProjection } from './blacklist/blacklist';
import { campaignsProjection } from './campaigns/campaigns';
import { customersProjection } from './customers/customers';
import { numbersProjection } from './numbers/numbers';
import { dispositionGroupsProjection } from './dispositions/disposition-groups';
import { dispositionsProjection } from './dispositions/dispositions';
import { organizationsProjection } from './organizations/organizations';
import { callLogsProjection } from './logs/call-logs';
import { openCallsProjection } from './calls/open-calls';
import { recordingsProjection } from './recordings/recordings';
import { transcriptsProjection } from './transcripts/transcripts';
import { chatsProjections } from './chats';
import { workflowsProjections } from './workflows';
import { webhooksProjections } from './webhooks';

/** Every read model the service keeps, in the order they are applied. */
export const allProjections: readonly AnyProjection[] = [
  organizationsProjection,
  dispositionsProjection,
  dispositionGroupsProjection,
  campaignsProjection,
  agentsProjection,
  customersProjection,
  numbersProjection,
  blacklistProjection,
  callLogsProjection,
  openCallsProjection,
  transcriptsProjection,
  recordingsProjection,
  ...chatsProjections,
  ...workflowsProjections,
  ...webhooksProjections,
];
