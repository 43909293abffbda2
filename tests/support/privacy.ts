/** A data subject of the privacy suites, the collection record that adds them to a campaign, and where their traces are. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export type Person = { loanId: string; first: string; last: string; phone: string };

/** The person's customer record, with the loan figures every suite uses, and any extra fields. */
export const personRecord = (p: Person, extra: Record<string, unknown> = {}) => ({
  loan_id: p.loanId,
  first_name: p.first,
  last_name: p.last,
  phone_number: p.phone,
  loan_amount: 90000,
  emi_amount: 4000,
  loan_period: 24,
  current_emi: 3,
  emi_due_date: '2026-04-05',
  payment_status: 'pending',
  ...extra,
});

/** Every way the person could be written down: names, the number with and without its `+`. */
export const tracesOf = (p: Person) => [p.first, p.last, p.phone, p.phone.slice(1)];

/** The files of a directory, recursively, as bytes (write-ahead logs included). */
export function filesUnder(dir: string): { path: string; bytes: Buffer }[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [{ path, bytes: readFileSync(path) }];
  });
}

/** Each trace of the people found in a file of the directory, as `file: trace (times)`. */
export function tracesUnder(dir: string, people: readonly Person[]): string[] {
  const traces = people.flatMap(tracesOf);
  return filesUnder(dir).flatMap(({ path, bytes }) =>
    traces.flatMap((trace) => {
      const needle = Buffer.from(trace);
      let times = 0;
      for (let at = bytes.indexOf(needle); at >= 0; at = bytes.indexOf(needle, at + 1)) times++;
      return times > 0 ? [`${path.slice(dir.length + 1)}: ${trace} (${times})`] : [];
    }),
  );
}
