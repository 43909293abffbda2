import { Type } from '@sinclair/typebox';

/** A string that is one of `values`, as a JSON Schema `enum` (one clear error, unlike a union of literals). */
export const StringEnum = <const T extends string>(values: readonly T[], options: Record<string, unknown> = {}) => Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });
