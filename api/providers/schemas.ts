/**
 * Request bodies of the provider routes: an organization's credentials at Twilio or at WhatsApp's
 * Cloud API (`PUT /providers/{alias}`), each checked with the provider before it is connected. The body is checked against the provider's own schema, chosen
 * by the path; the document shows both.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { Connect } from '../../application/providers/provider-account-service';
import type { ProviderAlias } from '../../domain/providers/provider-account';
import { HttpError, validationFailed } from '../http/errors';
import { validate } from '../http/validation';

const HEX_32 = '^[0-9a-fA-F]{32}$';
const DIGITS = '^[0-9]{1,32}$';

export const TwilioAccountBody = Type.Object(
  {
    account_sid: Type.String({
      minLength: 34,
      maxLength: 34,
      pattern: '^AC[0-9a-f]{32}$',
      description: 'Account SID: AC and 32 hex digits',
    }),
    auth_token: Type.String({
      minLength: 32,
      maxLength: 32,
      pattern: HEX_32,
      description: 'Auth token: 32 hex digits (shown masked afterwards)',
    }),
  },
  {
    title: 'TwilioAccount',
    description:
      'Connected once Twilio accepts these credentials for this account SID (GET /2010-04-01/Accounts/{sid}.json); ' +
      'refused with 400 otherwise',
  },
);

export const WhatsAppAccountBody = Type.Object(
  {
    phone_number_id: Type.String({
      minLength: 1,
      maxLength: 32,
      pattern: DIGITS,
      description: "The business phone number's id",
    }),
    business_account_id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 32, pattern: DIGITS, description: "The WhatsApp Business account's id" }),
    ),
    access_token: Type.String({
      minLength: 1,
      maxLength: 4096,
      pattern: '^\\S+$',
      description: 'Graph API access token (shown masked afterwards)',
    }),
    app_secret: Type.String({
      minLength: 32,
      maxLength: 32,
      pattern: HEX_32,
      description: "The app's secret: 32 hex digits (shown masked afterwards)",
    }),
    verify_token: Type.String({
      minLength: 1,
      maxLength: 256,
      description: 'The webhook subscription verify token (shown masked afterwards)',
    }),
  },
  {
    title: 'WhatsAppAccount',
    description:
      "Connected once the Graph API shows the phone number id to the access token (among the business account's " +
      'phone_numbers when business_account_id is given, else as the phone number node); refused with 400 otherwise',
  },
);

/** What the document shows as the body: one of the providers' accounts, as the path names it. */
export const ProviderAccountBody = Type.Union([TwilioAccountBody, WhatsAppAccountBody]);

/** What a field of an invalid format must look like, for an error a client can act on. */
const FORMATS: Record<string, string> = {
  account_sid: 'account_sid must be AC followed by 32 lowercase hex digits',
  auth_token: 'auth_token must be 32 hex digits',
  app_secret: 'app_secret must be 32 hex digits',
  phone_number_id: 'phone_number_id must be digits only',
  business_account_id: 'business_account_id must be digits only',
  access_token: 'access_token must not contain spaces',
};

function checked<S extends typeof TwilioAccountBody | typeof WhatsAppAccountBody>(schema: S, body: unknown): Static<S> {
  try {
    return validate(schema, body);
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    const errors = ((error.extra.errors as string[] | undefined) ?? []).map((message) => {
      const field = /^(\w+) has an invalid format$/.exec(message)?.[1];
      return (field && FORMATS[field]) ?? message;
    });
    throw validationFailed(errors);
  }
}

/** The account a body gives for `alias`, or 400 naming each problem. */
export function accountOf(alias: ProviderAlias, body: unknown): Connect {
  switch (alias) {
    case 'twilio': {
      const b = checked(TwilioAccountBody, body);
      return { alias, account: { accountSid: b.account_sid, authToken: b.auth_token } };
    }
    case 'whatsapp': {
      const b = checked(WhatsAppAccountBody, body);
      return {
        alias,
        account: {
          phoneNumberId: b.phone_number_id,
          businessAccountId: b.business_account_id ?? null,
          accessToken: b.access_token,
          appSecret: b.app_secret,
          verifyToken: b.verify_token,
        },
      };
    }
  }
}
