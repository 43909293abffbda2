/**
 * What every JSON body must be, whatever its route: not nested deeper than `MAX_JSON_DEPTH` (deep values
 * overflow the stack of every recursive walk after the door: serializing events, folding records), no
 * key that reaches an object's prototype when assigned (`__proto__`, `constructor`, `prototype`), and
 * no string or key that is not well-formed Unicode (a lone surrogate cannot be stored or served as UTF-8).
 * Walked without recursion, so the check itself cannot overflow.
 */
import { clip } from '../../application/clip';

export const MAX_JSON_DEPTH = 32;
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
/**
 * Whether `text` has no lone surrogate (a high one not followed by a low one, or a low one not preceded by a
 * high one): `String.prototype.isWellFormed` (ES2024; in every Node this service runs on).
 */
const wellFormed = (text: string): boolean => (text as unknown as { isWellFormed(): boolean }).isWellFormed();

/**
 * Whether `value` has any problem at all: the walk of `jsonShapeProblems` with nothing made per value (no
 * path, no frame), which every body takes; only a body with a problem is walked again for where it is. A
 * bulk add's 10,000 records are about 150,000 values.
 */
function hasProblem(value: unknown): boolean {
  const values: unknown[] = [value];
  const depths: number[] = [0];
  while (values.length > 0) {
    const current = values.pop();
    const depth = depths.pop()!;
    if (typeof current === 'string') {
      if (!wellFormed(current)) return true;
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= MAX_JSON_DEPTH) return true;
    if (Array.isArray(current)) {
      for (let i = 0; i < current.length; i++) {
        values.push(current[i]);
        depths.push(depth + 1);
      }
      continue;
    }
    for (const key of Object.keys(current)) {
      if (PROTOTYPE_KEYS.has(key) || !wellFormed(key)) return true;
      values.push((current as Record<string, unknown>)[key]);
      depths.push(depth + 1);
    }
  }
  return false;
}

/** The problems of `value` (at most a few: the first of each kind), each naming where it is. */
export function jsonShapeProblems(value: unknown): string[] {
  if (!hasProblem(value)) return [];
  const problems = new Map<string, string>();
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: '', depth: 0 }];
  while (stack.length > 0 && problems.size < 3) {
    const { value: current, path, depth } = stack.pop()!;
    if (typeof current === 'string') {
      if (!wellFormed(current) && !problems.has('unicode'))
        problems.set('unicode', `${path || 'body'} is not valid Unicode (a lone surrogate)`);
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= MAX_JSON_DEPTH) {
      problems.set('depth', `body is nested too deeply (at most ${MAX_JSON_DEPTH} levels)`);
      continue;
    }
    if (Array.isArray(current)) {
      current.forEach((item, i) => stack.push({ value: item, path: `${path}[${i}]`, depth: depth + 1 }));
      continue;
    }
    for (const key of Object.keys(current)) {
      const at = path ? `${path}.${clip(key)}` : clip(key);
      if (PROTOTYPE_KEYS.has(key) && !problems.has('key')) problems.set('key', `${at} is not an allowed property name`);
      else if (!wellFormed(key) && !problems.has('unicode'))
        problems.set('unicode', `${at} is not valid Unicode (a lone surrogate)`);
      else stack.push({ value: (current as Record<string, unknown>)[key], path: at, depth: depth + 1 });
    }
  }
  return [...problems.values()];
}
