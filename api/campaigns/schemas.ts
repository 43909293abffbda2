/**
 * Request bodies of the campaign routes: the anchor's fields (anchor-api.md 2.11) and ours (`language`,
 * `agentId`, `dispositionGroupId`). Every field but `name` and `campaignType` is optional; a field left
 * out of a creation takes its default (null, or an empty list for `languages` and `tags`).
 */
import { Type } from '@sinclair/typebox';
import { CAMPAIGN_LANGUAGES, CAMPAIGN_REGIONS } from '../../domain/campaigns/campaign';
import { RETRY_OUTCOMES } from '../../domain/campaigns/retry';
import { CustomerRecordSchema, MAX_BULK_RECORDS } from '../customers/schemas';
import { StringEnum } from '../http/schema';

const date = Type.String({ format: 'date' });
const time = Type.String({
  pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
  description: "`HH:MM`, 24-hour, the customer's local time; within the organization's calling hours",
});
const optionalId = Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()]);
const details = {
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  language: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 50 }), Type.Null()])),
  agentId: Type.Optional(optionalId),
  dispositionGroupId: Type.Optional(optionalId),
  startDate: Type.Optional(Type.Union([date, Type.Null()])),
  endDate: Type.Optional(Type.Union([date, Type.Null()])),
  /** The workflow `useWorkflow` runs when the add request names none; null removes it. */
  workflowId: Type.Optional(optionalId),
  startTime: Type.Optional(Type.Union([time, Type.Null()])),
  endTime: Type.Optional(Type.Union([time, Type.Null()])),
  timezone: Type.Optional(
    Type.Union([
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: "IANA time zone of the window when a customer's record names none (null: Asia/Kolkata)",
      }),
      Type.Null(),
    ]),
  ),
  maxConcurrentCalls: Type.Optional(
    Type.Union([
      Type.Integer({ minimum: 1, maximum: 1000, description: 'The most calls of the campaign in progress (null: 10)' }),
      Type.Null(),
    ]),
  ),
  callsPerMinute: Type.Optional(
    Type.Union([
      Type.Integer({
        minimum: 1,
        maximum: 6000,
        description: 'New calls of the campaign started per minute (null: 30)',
      }),
      Type.Null(),
    ]),
  ),
  retryPolicy: Type.Optional(
    Type.Union([
      Type.Object(
        {
          retryOn: Type.Optional(
            Type.Array(StringEnum(RETRY_OUTCOMES), {
              uniqueItems: true,
              maxItems: RETRY_OUTCOMES.length,
              description: 'Ends called again (default no_contact, busy)',
            }),
          ),
          delayMinutes: Type.Optional(
            Type.Integer({ minimum: 1, maximum: 10_080, description: 'After how long (default 60)' }),
          ),
          maxAttemptsPerDay: Type.Optional(
            Type.Integer({ minimum: 1, maximum: 10, description: 'Attempts per customer per local day (default 3)' }),
          ),
          maxAttemptsTotal: Type.Optional(
            Type.Integer({ minimum: 1, maximum: 20, description: 'Attempts per customer in all (default 6)' }),
          ),
        },
        { description: 'Calls customers again after these ends (docs/campaign-schedules.md); null: never' },
      ),
      Type.Null(),
    ]),
  ),
  blackoutDates: Type.Optional(
    Type.Array(date, { maxItems: 366, uniqueItems: true, description: 'Local dates on which nobody is called' }),
  ),
  languages: Type.Optional(
    Type.Array(StringEnum(CAMPAIGN_LANGUAGES), { maxItems: CAMPAIGN_LANGUAGES.length, uniqueItems: true }),
  ),
  region: Type.Optional(Type.Union([StringEnum(CAMPAIGN_REGIONS, { description: 'Informational' }), Type.Null()])),
  tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 })),
  jsonData: Type.Optional(
    Type.Array(CustomerRecordSchema, {
      maxItems: MAX_BULK_RECORDS,
      description: 'Customer records added to the campaign (as a bulk add); every record must be valid',
    }),
  ),
};
const name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });

export const CreateCampaignBody = Type.Object({ name, campaignType: StringEnum(['emi', 'edi', 'lead']), ...details });
export const UpdateCampaignBody = Type.Object({ name: Type.Optional(name), ...details }, { minProperties: 1 });
