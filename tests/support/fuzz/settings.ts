/**
 * How long and from where the fuzz suites run. `npm run check` runs them short; `npm run fuzz` long.
 * FUZZ_SEED repeats a run's inputs (printed at its start); FUZZ_RUNS is the cases per operation or
 * message type; FUZZ_BUDGET_MS bounds the whole walk (an operation gets its share of what is left, so a
 * slow one shortens the runs of none but itself); FUZZ_SHRINK=1 makes a failure shrink to a smaller case.
 * FUZZ_ONLY and FUZZ_VERBOSE narrow a run down to what is being looked into.
 */
const numberFrom = (name: string, fallback: number) => {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${name} must be a whole number (got "${value}")`);
  return n;
};

export const FUZZ_SEED = numberFrom('FUZZ_SEED', Math.floor(Math.random() * 2 ** 31));
export const FUZZ_RUNS = numberFrom('FUZZ_RUNS', 20);
export const FUZZ_BUDGET_MS = numberFrom('FUZZ_BUDGET_MS', 30_000);
export const FUZZ_SHRINK = process.env.FUZZ_SHRINK === '1';
/** FUZZ_ONLY: a regular expression; only the operations (`POST /api/v1/dispositions`) or message types it matches run. */
export const FUZZ_ONLY = new RegExp(process.env.FUZZ_ONLY ?? '');
/** FUZZ_VERBOSE=1 prints every case's answer. */
export const FUZZ_VERBOSE = process.env.FUZZ_VERBOSE === '1';
/** Longest wait for one answer; an answer later than this is a hang. */
export const ANSWER_TIMEOUT_MS = numberFrom('FUZZ_ANSWER_TIMEOUT_MS', 15_000);

/** The seed of one operation or message type: the run's seed and its name, so FUZZ_ONLY repeats the same cases. */
export function seedOf(name: string): number {
  let hash = FUZZ_SEED;
  for (const char of name) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
  return hash;
}

/** A value cut to a readable length for a report. */
export function shown(value: unknown, max = 300): string {
  const text =
    typeof value === 'string'
      ? value
      : JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
  if (text === undefined) return 'undefined';
  return text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
}
