/**
 * Adding customers from a CSV file: the file is read in the browser, sent as one bulk add, and the
 * API's answer laid against the file's lines: which were added, which were invalid (and why, field by
 * field) and which could not be added (a key already there, a duplicate in the file).
 */
import { useState } from 'preact/hooks';
import { api, ApiError } from '../../client/api';
import { ProblemList, Tally } from '../../components/tally';
import { ErrorNote, Field, Form } from '../../components/ui';
import { useAction } from '../../components/use-load';
import { readCustomersFile, type FileRow, type ReadFile } from './csv';
import { customerName, type KeyField } from './model';

/** A valid record that could not be added, named by its key (`reason`: `duplicate_in_request`, `already_exists`...). */
type BulkFailure = { id: string | null; error: string; reason?: string };

type BulkAnswer = {
  success: boolean;
  message: string;
  results: { total: number; valid: number; invalid: number; successful: number; failed: number };
  errors?: BulkFailure[];
  invalidRecords?: { index: number; id: string | null; errors: string[] }[];
};

type RowOutcome = { kind: 'added' } | { kind: 'invalid'; errors: string[] } | { kind: 'failed'; error: string };

/** The answer of the bulk add against the rows sent, in their order. */
export function outcomesOf(rows: readonly FileRow[], keyField: KeyField, answer: BulkAnswer) {
  const outcomes: RowOutcome[] = rows.map(() => ({ kind: 'added' }));
  for (const invalid of answer.invalidRecords ?? [])
    if (invalid.index < outcomes.length) outcomes[invalid.index] = { kind: 'invalid', errors: invalid.errors };
  // Failures name the key only. Of the rows sharing a key the first is added and the later ones fail
  // (`duplicate_in_request`); a key already in the campaign fails them all: either way, the last ones.
  const failures = new Map<string, BulkFailure[]>();
  const unmatched: string[] = [];
  for (const failure of answer.errors ?? []) {
    if (failure.id === null) unmatched.push(failure.error);
    else failures.set(failure.id, [...(failures.get(failure.id) ?? []), failure]);
  }
  for (const [key, list] of failures) {
    const same = rows
      .map((row, index) => ({ row, index }))
      .filter(({ row, index }) => String(row.record[keyField] ?? '') === key && outcomes[index]!.kind !== 'invalid');
    const failing = same.slice(Math.max(0, same.length - list.length));
    failing.forEach(({ index }, i) => (outcomes[index] = { kind: 'failed', error: list[i]!.error }));
    if (failing.length < list.length) unmatched.push(...list.slice(failing.length).map((f) => `${key}: ${f.error}`));
  }
  return { outcomes, unmatched };
}

export function BulkAdd(props: { campaignId: string; keyField: KeyField; onAdded: () => void }) {
  const [file, setFile] = useState<{ name: string; read: ReadFile } | undefined>(undefined);
  const [answer, setAnswer] = useState<BulkAnswer | undefined>(undefined);
  const read = useAction(async (chosen: File) => {
    setAnswer(undefined);
    setFile(undefined);
    setFile({ name: chosen.name, read: await readCustomersFile(chosen) });
  });
  const send = useAction(async () => {
    if (!file) return;
    setAnswer(undefined);
    const body = { campaignId: props.campaignId, records: file.read.rows.map((r) => r.record) };
    try {
      setAnswer(await api<BulkAnswer>('POST', '/customers/add/bulk', body));
    } catch (e) {
      // None added (400) answers the same report as some added (207): show it against the rows too.
      const report = e instanceof ApiError ? (e.body as Partial<BulkAnswer> | undefined) : undefined;
      if (!report?.results) throw e;
      setAnswer(report as BulkAnswer);
    }
    props.onAdded();
  });
  const rows = file?.read.rows ?? [];
  return (
    <details class="card">
      <summary>Add customers from a CSV file</summary>
      <Form label="Add customers from a CSV file" onSubmit={() => void send.run()}>
        <Field
          label="CSV file"
          hint={`The first line names the fields (${props.keyField}, first_name, last_name, phone_number…), one customer a line after it.`}
        >
          <input
            type="file"
            name="file"
            accept=".csv,text/csv"
            onChange={(e) => {
              const chosen = e.currentTarget.files?.[0];
              if (chosen) void read.run(chosen);
            }}
          />
        </Field>
        <ErrorNote error={read.error} />
        {file && (
          <p class="count" role="status">
            {rows.length} {rows.length === 1 ? 'customer' : 'customers'} read from {file.name}.
          </p>
        )}
        {file && <ProblemList problems={file.read.problems.slice(0, 20)} />}
        <ErrorNote error={send.error} />
        <button type="submit" disabled={!file || rows.length === 0 || send.busy}>
          {send.busy ? 'Adding…' : 'Add the customers'}
        </button>
      </Form>
      {file && answer && <BulkReport rows={rows} keyField={props.keyField} answer={answer} />}
    </details>
  );
}

const SHOWN = 500;

function BulkReport(props: { rows: readonly FileRow[]; keyField: KeyField; answer: BulkAnswer }) {
  const { rows, keyField, answer } = props;
  const { outcomes, unmatched } = outcomesOf(rows, keyField, answer);
  const troubled = rows.map((row, i) => ({ row, outcome: outcomes[i]! })).filter((r) => r.outcome.kind !== 'added');
  const [onlyTroubled, setOnlyTroubled] = useState(true);
  const listed = onlyTroubled ? troubled : rows.map((row, i) => ({ row, outcome: outcomes[i]! }));
  const r = answer.results;
  return (
    <Tally
      label="What the bulk add did"
      class="bulk-report"
      message={answer.message}
      success={answer.success}
      done={r.successful}
      counts={[
        ['Records', r.total],
        ['Valid', r.valid],
        ['Invalid', r.invalid],
        ['Added', r.successful],
        ['Not added', r.failed],
      ]}
      problems={unmatched}
    >
      {troubled.length > 0 && (
        <label class="check">
          <input type="checkbox" checked={onlyTroubled} onChange={(e) => setOnlyTroubled(e.currentTarget.checked)} />
          Only the lines that were not added
        </label>
      )}
      {listed.length > 0 && (
        <div class="table-scroll">
          <table>
            <caption class="visually-hidden">The file's lines and what became of them</caption>
            <thead>
              <tr>
                <th scope="col">Line</th>
                <th scope="col">{keyField}</th>
                <th scope="col">Name</th>
                <th scope="col">Result</th>
              </tr>
            </thead>
            <tbody>
              {listed.slice(0, SHOWN).map(({ row, outcome }) => (
                <tr key={row.line} class={outcome.kind === 'added' ? undefined : 'row-bad'}>
                  <td>{row.line}</td>
                  <td>
                    <code>{String(row.record[keyField] ?? '')}</code>
                  </td>
                  <td>{customerName(row.record)}</td>
                  <td>
                    <Outcome outcome={outcome} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {listed.length > SHOWN && (
        <p class="count">
          The first {SHOWN} of {listed.length} lines are shown.
        </p>
      )}
    </Tally>
  );
}

function Outcome(props: { outcome: RowOutcome }) {
  const { outcome } = props;
  switch (outcome.kind) {
    case 'added':
      return <span>Added</span>;
    case 'invalid':
      return (
        <span>
          Invalid:{' '}
          {outcome.errors.map((e, i) => (
            <span key={e}>
              {i > 0 && '; '}
              {e}
            </span>
          ))}
        </span>
      );
    case 'failed':
      return <span>Not added: {outcome.error}</span>;
    default: {
      const never: never = outcome;
      return never;
    }
  }
}
