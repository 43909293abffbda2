/**
 * Request bodies of the blacklist routes (spec 4.12; decisions.md section 2). The two anchor texts
 * are answered before any other check, exactly as the platform words them; the schemas describe the
 * bodies in the OpenAPI document.
 */
import { Type } from '@sinclair/typebox';
import { clip } from '../../application/clip';
import { MAX_NAME_LENGTH, normalizePhoneNumber } from '../../domain/blacklist/blacklist';
import { HttpError, validationFailed } from '../http/errors';
import { validate } from '../http/validation';

export const MAX_BLACKLIST_ITEMS = 10_000;
export const NOT_A_NON_EMPTY_ARRAY = 'Request body must be a non-empty array.';
export const ITEM_WITHOUT_NUMBER = "Each item must contain a 'number' field.";

const number = Type.Union([Type.String({ minLength: 1 }), Type.Integer()], {
  description: 'Phone number, 7 to 15 digits with an optional leading +; spaces, dashes and parentheses are ignored',
});

export const BlacklistAddBody = Type.Array(
  Type.Object({ number, name: Type.Optional(Type.Union([Type.String({ maxLength: MAX_NAME_LENGTH }), Type.Null()])) }),
  { minItems: 1, maxItems: MAX_BLACKLIST_ITEMS },
);
export const BlacklistRemoveBody = Type.Array(Type.Object({ number }), { minItems: 1, maxItems: MAX_BLACKLIST_ITEMS });

export type BlacklistItem = { number: string; name?: string | null };

/** The items of a blacklist body, or the anchor's 400 answers. */
export function blacklistItems(body: unknown, options: { names: boolean } = { names: true }): BlacklistItem[] {
  if (!Array.isArray(body) || body.length === 0) throw new HttpError(400, NOT_A_NON_EMPTY_ARRAY);
  if (body.length > MAX_BLACKLIST_ITEMS)
    throw new HttpError(400, `Request body must have at most ${MAX_BLACKLIST_ITEMS} items.`);
  const errors: string[] = [];
  const items = body.map((item: unknown, i): BlacklistItem => {
    const value = typeof item === 'object' && item !== null ? (item as Record<string, unknown>).number : undefined;
    if (!(typeof value === 'string' && value.trim() !== '') && !Number.isSafeInteger(value))
      throw new HttpError(400, ITEM_WITHOUT_NUMBER);
    // Checked here as the domain checks it, so that the number it echoes is cut (a 1 MB one would come back whole).
    const number = String(value);
    if (normalizePhoneNumber(number) === null)
      errors.push(
        `[${i}].number must be 7 to 15 digits with an optional leading + (got ${JSON.stringify(clip(number))})`,
      );
    const name = options.names ? (item as Record<string, unknown>).name : undefined;
    if (name !== undefined && name !== null && (typeof name !== 'string' || name.length > MAX_NAME_LENGTH))
      errors.push(`[${i}].name must be a string of at most ${MAX_NAME_LENGTH} characters`);
    return { number, ...(typeof name === 'string' && { name }) };
  });
  if (errors.length > 0) throw validationFailed(errors);
  // Then the schema, for what the anchor's texts do not cover (a property the item must not carry).
  validate(options.names ? BlacklistAddBody : BlacklistRemoveBody, body);
  return items;
}
