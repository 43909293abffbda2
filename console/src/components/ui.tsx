/** The small pieces every page is made of: a page frame, fields with labels, errors in place, tables, paging. */
import { cloneElement, isValidElement, type ComponentChildren, type JSX } from 'preact';
import { useId } from 'preact/hooks';
import { ApiError } from '../client/api';

export function Page(props: { title: string; actions?: ComponentChildren; children: ComponentChildren }) {
  return (
    <section class="page" aria-labelledby="page-title">
      <header class="page-header">
        <h1 id="page-title">{props.title}</h1>
        {props.actions && <div class="page-actions">{props.actions}</div>}
      </header>
      {props.children}
    </section>
  );
}

/**
 * The API's error message where the action was taken, with every reason it gave: the `errors` of a
 * validation failure (strings) or of a bulk route (objects naming the item, with `error` or `message`).
 */
export function ErrorNote(props: { error: Error | undefined }) {
  const { error } = props;
  if (!error) return null;
  const reasons = error instanceof ApiError ? reasonsOf(error.details) : [];
  return (
    <div class="error" role="alert">
      <strong>{error.message}</strong>
      {reasons.length > 0 && (
        <ul>
          {reasons.map((reason, i) => (
            <li key={i}>{reason}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

function reasonsOf(details: unknown): string[] {
  const errors = (details as { errors?: unknown } | undefined)?.errors;
  return Array.isArray(errors) ? errors.map(reasonText) : [];
}

function reasonText(reason: unknown): string {
  if (typeof reason === 'string') return reason;
  if (reason && typeof reason === 'object') {
    const { id, error, message } = reason as { id?: unknown; error?: unknown; message?: unknown };
    const text = error ?? message;
    if (typeof text === 'string') return id === undefined || id === null || id === '' ? text : `${String(id)}: ${text}`;
  }
  return JSON.stringify(reason);
}

type FieldProps = { label: string; hint?: string; children: ComponentChildren };

/**
 * A labelled control. A single control is named by the label alone (`for` its id: a select wrapped in
 * its label would be named by its options' text too); anything else is wrapped by the label.
 */
export function Field(props: FieldProps) {
  const id = useId();
  const hint = props.hint && <span class="field-hint">{props.hint}</span>;
  const child = props.children;
  if (isValidElement(child) && typeof child.type === 'string') {
    const own = (child.props as { id?: string }).id ?? id;
    return (
      <div class="field">
        <label class="field-label" for={own}>
          {props.label}
        </label>
        {cloneElement(child, { id: own })}
        {hint}
      </div>
    );
  }
  return (
    <label class="field">
      <span class="field-label">{props.label}</span>
      {child}
      {hint}
    </label>
  );
}

export function Loading(props: { what?: string }) {
  return (
    <p class="loading" role="status" aria-live="polite">
      Loading{props.what ? ` ${props.what}` : ''}…
    </p>
  );
}

export type Column<Row> = { title: string; cell: (row: Row) => ComponentChildren; class?: string };

export function Table<Row>(props: {
  caption: string;
  columns: readonly Column<Row>[];
  rows: readonly Row[];
  rowKey: (row: Row) => string;
  empty?: string;
}) {
  if (props.rows.length === 0) return <p class="empty">{props.empty ?? 'Nothing here yet.'}</p>;
  return (
    <div class="table-scroll">
      <table>
        <caption class="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((c) => (
              <th scope="col" key={c.title} class={c.class}>
                {c.title}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr key={props.rowKey(row)}>
              {props.columns.map((c) => (
                <td key={c.title} class={c.class}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export type PageInfo = { page: number; total_pages: number; total: number };

/** Previous and next, and where the operator is: the API's pagination object. */
export function Pager(props: { pagination: PageInfo | undefined; onPage: (page: number) => void }) {
  const p = props.pagination;
  if (!p || p.total_pages <= 1) return p ? <p class="count">{p.total} in all</p> : null;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={p.page <= 1} onClick={() => props.onPage(p.page - 1)}>
        Previous
      </button>
      <span>
        Page {p.page} of {p.total_pages} ({p.total} in all)
      </span>
      <button type="button" disabled={p.page >= p.total_pages} onClick={() => props.onPage(p.page + 1)}>
        Next
      </button>
    </nav>
  );
}

/** A form that runs `onSubmit` without reloading the page. */
export function Form(props: { label: string; onSubmit: () => void; children: ComponentChildren; class?: string }) {
  const submit = (event: JSX.TargetedEvent<HTMLFormElement>) => {
    event.preventDefault();
    props.onSubmit();
  };
  return (
    <form class={props.class ?? 'form'} aria-label={props.label} onSubmit={submit}>
      {props.children}
    </form>
  );
}
