/** Request bodies and query rules of the number routes (spec 4.8; decisions.md sections 2 and 6). */
import { Type } from '@sinclair/typebox';
import { StringEnum } from '../http/schema';
import type { InventoryItem } from '../../application/numbers/number-service';
import { validate } from '../http/validation';
import { E164_PATTERN } from '../../domain/numbers/phone-number';

export const MAX_PURCHASE_ITEMS = 100;
export const MAX_INVENTORY_ITEMS = 10_000;
export const DEFAULT_PROVIDER = 'builtin';

const provider = Type.String({
  minLength: 1,
  maxLength: 50,
  pattern: '^[A-Za-z0-9_.-]+$',
  description: 'Provider alias, for example builtin',
});

export const BuyNumbersBody = Type.Array(
  Type.Object({
    number: Type.String({ minLength: 1, maxLength: 32, description: 'E.164, for example +919876543210' }),
    provider: Type.Optional(provider),
  }),
  { minItems: 1, maxItems: MAX_PURCHASE_ITEMS },
);

/** The providers numbers are imported from: those whose accounts an organization connects (api/providers). */
export const IMPORT_PROVIDERS = ['twilio'] as const;

/** `POST /numbers/import`: numbers the organization already holds at a real provider. */
export const ImportNumbersBody = Type.Array(
  Type.Object({
    number: Type.String({ minLength: 1, maxLength: 32, description: 'E.164, for example +14155550123' }),
    provider: StringEnum(IMPORT_PROVIDERS, { description: 'The provider the organization holds the number at' }),
    voice_enabled: Type.Optional(Type.Boolean({ description: 'Whether calls are placed from it (default true)' })),
    sms_enabled: Type.Optional(Type.Boolean({ description: 'Whether messages are sent from it (default true)' })),
  }),
  { minItems: 1, maxItems: MAX_PURCHASE_ITEMS },
);

export const StockNumbersBody = Type.Array(
  Type.Object(
    {
      number: Type.String({ pattern: E164_PATTERN, description: 'E.164, for example +919876543210' }),
      provider,
      country_iso: Type.String({ pattern: '^[A-Za-z]{2}$', description: 'Two-letter ISO country code' }),
      sms_enabled: Type.Boolean(),
      voice_enabled: Type.Boolean(),
    },
    { additionalProperties: false },
  ),
  { minItems: 1, maxItems: MAX_INVENTORY_ITEMS },
);

/** The items of an inventory body (admin API and command line), provider lower-cased and country upper-cased. */
export const inventoryItems = (body: unknown): InventoryItem[] =>
  validate(StockNumbersBody, body).map((item) => ({
    ...item,
    provider: item.provider.toLowerCase(),
    country_iso: item.country_iso.toUpperCase(),
  }));

const id = Type.String({ minLength: 1, maxLength: 100 });

/** `PUT /numbers/{number}/inbound`: who answers the number's inbound calls and chats (docs/inbound.md). */
export const InboundRoutingBody = Type.Object(
  {
    agentId: { ...id, description: "The organization's agent that takes the inbound calls and chats" },
    dispositionId: {
      ...id,
      description: 'A disposition, or a disposition group, the inbound calls and chats end with',
    },
  },
  { additionalProperties: false },
);
