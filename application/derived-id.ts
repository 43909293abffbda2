/**
 * Ids derived from what identifies a thing (a run's step visit, a trigger and a customer, a failed
 * process step), shaped as UUIDs (version 8, "custom"). Deriving instead of generating is what makes a
 * repeated step find what it already made: the same inputs always give the same id.
 */
import { createHash } from 'node:crypto';

export function derivedId(...parts: readonly string[]): string {
  const hex = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The id a request with an origin (an `Idempotency-Key`) gives to the thing `parts` name, the same in
 * every run of it; undefined without one, for the caller to generate a fresh id.
 */
export const originId = (ctx: { origin?: string }, ...parts: readonly string[]): string | undefined =>
  ctx.origin === undefined ? undefined : derivedId(ctx.origin, ...parts);

/**
 * The id of what a request creates: a fresh one, or, for a request with an origin, the one derived from
 * it, and then whether a run of the same request cut short by a crash created it already (`made`:
 * nothing to create again, the answer shows what is there).
 */
export async function creationId(
  ctx: { origin?: string },
  newId: () => string,
  kind: string,
  made: (id: string) => Promise<boolean>,
): Promise<{ id: string; made: boolean }> {
  const derived = originId(ctx, kind);
  if (derived === undefined) return { id: newId(), made: false };
  return { id: derived, made: await made(derived) };
}
