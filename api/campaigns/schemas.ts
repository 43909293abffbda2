import { Type } from '@sinclair/typebox';
import { StringEnum } from '../http/schema';

const date = Type.String({ format: 'date' });
const optionalId = Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()]);
const details = {
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  language: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 50 }), Type.Null()])),
  agentId: Type.Optional(optionalId),
  dispositionGroupId: Type.Optional(optionalId),
  startDate: Type.Optional(Type.Union([date, Type.Null()])),
  endDate: Type.Optional(Type.Union([date, Type.Null()])),
  /** Ours: the workflow `useWorkflow` runs when the add request names none; null removes it. */
  workflowId: Type.Optional(optionalId),
};
const name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });

export const CreateCampaignBody = Type.Object({ name, campaignType: StringEnum(['emi', 'edi', 'lead']), ...details });
export const UpdateCampaignBody = Type.Object({ name: Type.Optional(name), ...details }, { minProperties: 1 });
