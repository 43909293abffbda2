import { Type, type Static, type TObject } from '@sinclair/typebox';

/** A string that is one of `values`, as a JSON Schema `enum` (one clear error, unlike a union of literals). */
export const StringEnum = <const T extends string>(values: readonly T[], options: Record<string, unknown> = {}) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });

/**
 * One of `variants`, chosen by the value of their `tag` property: a body is checked against its own
 * variant only, so an error names the property at fault instead of "body is not valid".
 */
export const Tagged = <const T extends TObject[]>(tag: string, variants: T) =>
  Type.Unsafe<Static<T[number]>>({
    type: 'object',
    required: [tag],
    discriminator: { propertyName: tag },
    oneOf: variants,
  });
