import { Type } from '@sinclair/typebox';
import { MAX_SECRET_LENGTH, MAX_URL_LENGTH, MIN_SECRET_LENGTH } from '../../domain/webhooks/webhook-settings';

/** `url` must be an absolute http(s) URL (checked by the settings' rules, with a message naming it). */
export const PutWebhookBody = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: MAX_URL_LENGTH,
      description: 'Absolute http or https URL the entries are POSTed to',
    }),
    secret: Type.Optional(
      Type.String({
        minLength: MIN_SECRET_LENGTH,
        maxLength: MAX_SECRET_LENGTH,
        description:
          'Secret the deliveries are signed with (HMAC-SHA256), never sent itself; generated when absent and none is set',
      }),
    ),
    enabled: Type.Optional(
      Type.Boolean({ description: 'Deliveries on (default true for a new webhook; otherwise kept)' }),
    ),
  },
  { additionalProperties: false },
);
