/** Request bodies of the privacy routes (docs/privacy.md): a data subject, named one way; the retention. */
import { Type } from '@sinclair/typebox';
import { RETENTION_DAYS } from '../../domain/privacy/erasure';

const key = (description: string) =>
  Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description }));

/** Exactly one of a phone number, a `loan_id` (collection) or a `lead_id` (lead generation). */
export const EraseSubjectBody = Type.Object(
  {
    phone: Type.Optional(
      Type.String({
        minLength: 7,
        maxLength: 32,
        description: 'The subject’s phone number, 7 to 15 digits with an optional leading +',
      }),
    ),
    loan_id: key('A customer’s loan id, in any campaign of the organization (collection organizations)'),
    lead_id: key('A customer’s lead id, in any campaign of the organization (lead generation organizations)'),
  },
  { minProperties: 1, maxProperties: 1, description: 'The data subject: exactly one of phone, loan_id, lead_id' },
);

/** How long conversation content is kept: days after a conversation's end, or null for ever. */
export const SetRetentionBody = Type.Object(
  {
    days: Type.Union([Type.Integer({ minimum: RETENTION_DAYS.min, maximum: RETENTION_DAYS.max }), Type.Null()], {
      description: `Days after a call or chat ended that its transcript, summary, extracted data, messages and recording are kept (${RETENTION_DAYS.min} to ${RETENTION_DAYS.max}); null keeps them for ever`,
    }),
  },
  { additionalProperties: false },
);
