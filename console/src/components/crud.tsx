/**
 * What the settings pages (dispositions, agents, numbers, blacklist, workflows, webhooks) share: a
 * paged list with its search, an editor card for create and edit, a delete that asks first, and the
 * API's error with its per-field details, shown where the action was taken.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, type Query } from '../client/api';
import { ErrorNote, Form, Field, Loading, Pager, Table, type Column, type PageInfo } from './ui';
import { useAction, useLoad, type Loaded } from './use-load';

/** A page of a list, as every list of the API answers it. */
export type Paged<T> = { data: T[]; pagination: PageInfo };

/**
 * The API's error with its problems listed: the API sends them as `errors` beside `message` (and the
 * bulk routes as objects naming the item), which ErrorNote shows when they are the error's details.
 */
export function withDetails(error: Error | undefined): Error | undefined {
  if (!(error instanceof ApiError) || error.details !== undefined) return error;
  const errors = (error.body as { errors?: unknown } | undefined)?.errors;
  if (!Array.isArray(errors)) return error;
  return new ApiError(error.status, error.message, { errors: errors.map(problemText) }, error.body);
}

function problemText(problem: unknown): string {
  if (typeof problem === 'string') return problem;
  if (problem && typeof problem === 'object') {
    const { id, error, reason } = problem as { id?: unknown; error?: unknown; reason?: unknown };
    return [id, error, reason].filter((part) => part !== undefined && part !== null && part !== '').join(': ');
  }
  return JSON.stringify(problem);
}

/** The API's error in place, with its details. */
export function ActionError(props: { error: Error | undefined }) {
  return <ErrorNote error={withDetails(props.error)} />;
}

/** What went well, said to screen readers as well. */
export function Notice(props: { children: ComponentChildren }) {
  return (
    <p class="notice" role="status">
      {props.children}
    </p>
  );
}

/** A date and time of the API (ISO 8601) as the operator's browser writes them. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

export type PagedList<T> = Loaded<Paged<T>> & { page: number; setPage: (page: number) => void };

/**
 * A list of the API, page by page; back to its first page when the query changes, and loaded again
 * when `version` changes (something the list shows was changed elsewhere on the page).
 */
export function usePagedList<T>(
  path: string,
  query: Query = {},
  options: { limit?: number; version?: number } = {},
): PagedList<T> {
  const key = JSON.stringify(query);
  const [paging, setPaging] = useState({ key, page: 1 });
  const page = paging.key === key ? paging.page : 1;
  const list = useLoad(
    () => api<Paged<T>>('GET', path, undefined, { ...query, page, limit: options.limit ?? 10 }),
    [path, key, page, options.version],
  );
  return { ...list, page, setPage: (next: number) => setPaging({ key, page: next }) };
}

/** Every item of a list (for choosing among them), at most `max` of them. */
export async function loadAll<T>(path: string, max = 1000): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; items.length < max; page++) {
    const answer = await api<Paged<T>>('GET', path, undefined, { page, limit: 100 });
    items.push(...answer.data);
    if (page >= answer.pagination.total_pages) break;
  }
  return items;
}

/** A search box for a list: searches when submitted, and shows everything again when emptied. */
export function SearchBar(props: { label: string; onSearch: (text: string) => void }) {
  const [text, setText] = useState('');
  return (
    <div role="search" class="search-bar">
      <Form label={props.label} onSubmit={() => props.onSearch(text.trim())}>
        <Field label={props.label}>
          <input
            type="search"
            value={text}
            onInput={(e) => {
              setText(e.currentTarget.value);
              if (e.currentTarget.value === '') props.onSearch('');
            }}
          />
        </Field>
        <button type="submit" class="secondary">
          Search
        </button>
      </Form>
    </div>
  );
}

/** A list of the API as a table: loading, its error, its rows and its pages. */
export function ListView<Row>(props: {
  list: PagedList<Row>;
  caption: string;
  columns: readonly Column<Row>[];
  rowKey: (row: Row) => string;
  empty: string;
}) {
  const { list } = props;
  if (list.error) return <ActionError error={list.error} />;
  if (!list.data) return <Loading what={props.caption.toLowerCase()} />;
  return (
    <div aria-busy={list.loading}>
      <Table
        caption={props.caption}
        columns={props.columns}
        rows={list.data.data}
        rowKey={props.rowKey}
        empty={props.empty}
      />
      <Pager pagination={list.data.pagination} onPage={list.setPage} />
    </div>
  );
}

/** Whether an editor is open, and for what: a new item, or one of the list. */
export type Editing<T> = { mode: 'create' } | { mode: 'edit'; item: T } | null;

/**
 * A card holding the form that creates or changes an item, with the API's error beside its buttons.
 * The first control takes the focus when it opens, and Escape closes it.
 */
export function EditorCard(props: {
  title: string;
  submitLabel: string;
  busy: boolean;
  error: Error | undefined;
  onSubmit: () => void;
  onCancel: () => void;
  children: ComponentChildren;
}) {
  const card = useRef<HTMLElement>(null);
  useEffect(() => {
    // Back to the button that opened the editor when it closes, so the keyboard does not lose its place.
    const opener = document.activeElement;
    card.current?.querySelector<HTMLElement>('input:not([readonly]), select, textarea')?.focus();
    return () => {
      if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
    };
  }, []);
  const id = `editor-${props.title.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <section
      class="card editor"
      aria-labelledby={id}
      ref={card}
      onKeyDown={(e) => {
        if (e.key === 'Escape') props.onCancel();
      }}
    >
      <h2 id={id}>{props.title}</h2>
      <Form label={props.title} onSubmit={props.onSubmit} class="form editor-form">
        {props.children}
        <ActionError error={props.error} />
        <div class="buttons">
          <button type="submit" disabled={props.busy}>
            {props.busy ? 'Saving…' : props.submitLabel}
          </button>
          <button type="button" class="secondary" onClick={props.onCancel}>
            Cancel
          </button>
        </div>
      </Form>
    </section>
  );
}

/**
 * A delete button that asks first, in a modal dialog (focus kept inside, Escape cancels) which also
 * shows the API's refusal, for example a disposition still in a group.
 */
export function DeleteButton(props: {
  what: string;
  /** What deleting does, said in the question. */
  consequence?: string;
  label?: string;
  onDelete: () => Promise<unknown>;
  onDeleted: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const remove = useAction(async () => {
    await props.onDelete();
    return true;
  });
  const verb = props.label ?? 'Delete';
  const open = () => {
    remove.clearError();
    dialog.current?.showModal();
  };
  // On a refusal the dialog stays open, showing the API's message.
  const confirm = async () => {
    if (!(await remove.run())) return;
    dialog.current?.close();
    props.onDeleted();
  };
  const titleId = useRef(`confirm-${Math.random().toString(36).slice(2)}`).current;
  return (
    <>
      <button type="button" class="danger" aria-label={`${verb} ${props.what}`} onClick={open}>
        {verb}
      </button>
      <dialog ref={dialog} class="confirm" aria-labelledby={titleId}>
        <h2 id={titleId}>
          {verb} “{props.what}”?
        </h2>
        {props.consequence && <p>{props.consequence}</p>}
        <ActionError error={remove.error} />
        <div class="buttons">
          <button type="button" class="danger" disabled={remove.busy} onClick={() => void confirm()}>
            Yes, {verb.toLowerCase()}
          </button>
          <button type="button" class="secondary" autoFocus onClick={() => dialog.current?.close()}>
            Cancel
          </button>
        </div>
      </dialog>
    </>
  );
}

/** The controls of a row: its edit button (named with the row) and whatever else it has. */
export function RowActions(props: { children: ComponentChildren }) {
  return <div class="row-actions">{props.children}</div>;
}

export function EditButton(props: { what: string; onEdit: () => void; label?: string }) {
  const verb = props.label ?? 'Edit';
  return (
    <button type="button" class="secondary" aria-label={`${verb} ${props.what}`} onClick={props.onEdit}>
      {verb}
    </button>
  );
}

/** A heading of a section of the page with its buttons beside it. */
export function SectionHeader(props: { id: string; title: string; children?: ComponentChildren }) {
  return (
    <header class="section-header">
      <h2 id={props.id}>{props.title}</h2>
      {props.children && <div class="section-actions">{props.children}</div>}
    </header>
  );
}

/**
 * A labelled choice. Field's label wraps its control, and a select's options would then be read as part
 * of its name: the select is named by the label alone.
 */
export function SelectField(props: {
  label: string;
  hint?: string;
  value: string;
  required?: boolean;
  onChange: (value: string) => void;
  children: ComponentChildren;
}) {
  return (
    <Field label={props.label} hint={props.hint}>
      <select
        aria-label={props.label}
        required={props.required}
        value={props.value}
        onChange={(e) => props.onChange(e.currentTarget.value)}
      >
        {props.children}
      </select>
    </Field>
  );
}
