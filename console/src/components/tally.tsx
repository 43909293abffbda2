/** What a batch did (a bulk add, starting calls): its message, its counts, and the problems it listed. */
import type { ComponentChildren } from 'preact';

/** The message of a batch: all done, some done, or none. */
function outcomeClass(success: boolean, done: number): string {
  if (success) return 'notice';
  return done > 0 ? 'partial' : 'error';
}

export function Tally(props: {
  /** What the report is about, its accessible name. */
  label: string;
  class: string;
  message: string;
  success: boolean;
  /** How many items were done, to tell a partial success from none. */
  done: number;
  counts?: readonly (readonly [string, number])[];
  problems?: readonly string[];
  children?: ComponentChildren;
}) {
  return (
    <div class={props.class} aria-label={props.label}>
      <p class={outcomeClass(props.success, props.done)} role="status">
        {props.message}
      </p>
      {props.counts && (
        <dl class="facts counts">
          {props.counts.map(([label, value]) => (
            <div key={label}>
              <dt>{label}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
      )}
      {props.problems && <ProblemList problems={props.problems} />}
      {props.children}
    </div>
  );
}

/** Problems of a file or a batch, one a line (none: nothing shown). */
export function ProblemList(props: { problems: readonly string[] }) {
  if (props.problems.length === 0) return null;
  return (
    <ul class="file-problems">
      {props.problems.map((problem, i) => (
        <li key={i}>{problem}</li>
      ))}
    </ul>
  );
}
