import { Type } from '@sinclair/typebox';
import { languageCodes } from '../../domain/shared/languages';
import { CHAT_STATUSES } from '../../domain/chats/chat';
import { CustomerFiltersSchema } from '../calls/schemas';
import { StringEnum, Tagged } from '../http/schema';

const id = Type.String({ minLength: 1, maxLength: 200 });

export const CreateTemplateBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }),
  language: Type.Optional(StringEnum(languageCodes)),
  body: Type.String({ minLength: 1, maxLength: 4096, pattern: '\\S' }),
});

/** Spec 4.11. */
export const InitiateChatBody = Type.Object({
  templateId: id,
  conversationSettings: Type.Optional(Type.Object({ agentId: id, dispositionId: id })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  filters: Type.Optional(CustomerFiltersSchema),
});

const text = (maxLength: number) => Type.String({ maxLength });
const DeliveryErrorSchema = Type.Object({
  code: Type.Integer(),
  title: text(500),
  message: text(2000),
  href: text(2000),
  error_data: Type.Object({ details: text(2000) }),
});

/** A chat platform's report (webhook body): a status, a conversation message, or the close. */
export const ChatReportBody = Tagged('kind', [
  Type.Object({
    messageId: id,
    kind: Type.Literal('status'),
    status: StringEnum(CHAT_STATUSES),
    at: Type.String({ format: 'date-time' }),
    platformMsgId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    errors: Type.Optional(Type.Array(DeliveryErrorSchema, { maxItems: 20 })),
  }),
  Type.Object({
    messageId: id,
    kind: Type.Literal('message'),
    entryId: id,
    role: StringEnum(['assistant', 'user'] as const),
    content: text(10_000),
    at: Type.String({ format: 'date-time' }),
  }),
  Type.Object({
    messageId: id,
    kind: Type.Literal('closed'),
    at: Type.String({ format: 'date-time' }),
    reason: Type.Optional(text(100)),
    disposition: Type.Optional(Type.Union([Type.Object({ id, name: text(200) }), Type.Null()])),
    summary: Type.Optional(text(10_000)),
  }),
]);
