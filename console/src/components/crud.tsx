/**
 * What the list pages share: a paged list of the API with its search and its pages, and for the settings
 * pages (dispositions, agents, blacklist, workflows, webhooks) an editor card for create and edit and
 * the notice of what was done.
 */
import { Fragment, type ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type Query } from '../client/api';
import { DeleteButton } from './delete-button';
import { ErrorNote, Form, Field, Loading, Pager, Table, type Column, type PageInfo } from './ui';
import { useAction, useLoad, type Loaded } from './use-load';

/** A page of a list, as every list of the API answers it. */
export type Paged<T> = { data: T[]; pagination: PageInfo };

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

/**
 * A list of the API as a table: loading, its error, its rows and its pages. Its pages turn with
 * `onPage` when the address holds the page, else with the list's own `setPage`.
 */
export function ListView<Row>(props: {
  list: Loaded<Paged<Row>> & { setPage?: (page: number) => void };
  onPage?: (page: number) => void;
  caption: string;
  columns: readonly Column<Row>[];
  rowKey: (row: Row) => string;
  empty: string;
  /** The rows shown, when the page's rows are narrowed here (else all of them). */
  rows?: readonly Row[];
  /** What is loading, as the loading note says it (else the caption). */
  what?: string;
}) {
  const { list } = props;
  if (list.error) return <ErrorNote error={list.error} />;
  if (!list.data) return <Loading what={props.what ?? props.caption.toLowerCase()} />;
  return (
    <div aria-busy={list.loading}>
      <Table
        caption={props.caption}
        columns={props.columns}
        rows={props.rows ?? list.data.data}
        rowKey={props.rowKey}
        empty={props.empty}
      />
      <Pager pagination={list.data.pagination} onPage={props.onPage ?? list.setPage ?? (() => {})} />
    </div>
  );
}

/** Whether an editor is open, and for what: a new item, or one of the list. */
export type Editing<T> = { mode: 'create' } | { mode: 'edit'; item: T } | null;

/** The item an editor changes, or undefined when it creates one. */
export const startOf = <T,>(editing: NonNullable<Editing<T>>): T | undefined =>
  editing.mode === 'edit' ? editing.item : undefined;

/** What an editor of a list is given: what it edits, and what to call with the notice once it saved. */
export type EditorProps<T> = {
  editing: NonNullable<Editing<T>>;
  onSaved: (notice: string) => void;
  onClose: () => void;
};

export type EditableList<T> = {
  list: PagedList<T>;
  idOf: (item: T) => string;
  search: string;
  setSearch: (text: string) => void;
  editing: Editing<T>;
  create: () => void;
  edit: (item: T) => void;
  close: () => void;
  notice: string;
  /** Says what changed, and loads the list again. */
  changed: (notice: string) => void;
  /** Closes the editor, which saved: what `changed` does. */
  saved: (notice: string) => void;
};

/**
 * A list of the API with its search, its editor (open for a new item or one of the list) and the notice
 * of the last change; `onChanged` tells the rest of the page, `version` has the list loaded again.
 */
export function useEditableList<T>(
  path: string,
  idOf: (item: T) => string,
  options: { query?: Query; version?: number; onChanged?: () => void } = {},
): EditableList<T> {
  const [search, setSearch] = useState('');
  const list = usePagedList<T>(path, { ...options.query, search }, { version: options.version });
  const [editing, setEditing] = useState<Editing<T>>(null);
  const [notice, setNotice] = useState('');
  const changed = (text: string) => {
    setNotice(text);
    list.reload();
    options.onChanged?.();
  };
  return {
    list,
    idOf,
    search,
    setSearch,
    editing,
    create: () => setEditing({ mode: 'create' }),
    edit: (item) => setEditing({ mode: 'edit', item }),
    close: () => setEditing(null),
    notice,
    changed,
    saved: (text) => {
      setEditing(null);
      changed(text);
    },
  };
}

/**
 * An editable list as its page shows it: the editor when open (the first control focused), the notice
 * of the last change, the search box when the API searches the list, and the list itself.
 */
export function EditableListView<Row>(props: {
  crud: EditableList<Row>;
  editor: (props: EditorProps<Row>) => ComponentChildren;
  /** The search box's name, when the API searches this list. */
  searchLabel?: string;
  /** What a row is (`disposition`), for "No disposition matches “…”". */
  noun?: string;
  caption: string;
  columns: readonly Column<Row>[];
  empty: string;
}) {
  const { crud } = props;
  const { editing } = crud;
  return (
    <>
      {editing && (
        <Fragment key={editing.mode === 'edit' ? crud.idOf(editing.item) : 'new'}>
          {props.editor({ editing, onSaved: crud.saved, onClose: crud.close })}
        </Fragment>
      )}
      {crud.notice && <Notice>{crud.notice}</Notice>}
      {props.searchLabel && <SearchBar label={props.searchLabel} onSearch={crud.setSearch} />}
      <ListView
        list={crud.list}
        caption={props.caption}
        columns={props.columns}
        rowKey={crud.idOf}
        empty={crud.search ? `No ${props.noun ?? 'item'} matches “${crud.search}”.` : props.empty}
      />
    </>
  );
}

/**
 * The editor of a named item of the API: created with POST to `createPath` (else `path`), changed with
 * PUT to `{path}/{id}`; the notice names it.
 */
export function ItemEditor<T extends { id: string; name: string }>(
  props: EditorProps<T> & {
    noun: string;
    path: string;
    createPath?: string;
    body: () => unknown;
    notice?: (saved: T) => string;
    children: ComponentChildren;
  },
) {
  const start = startOf(props.editing);
  const { noun } = props;
  const save = useAction(async () => {
    const answer = start
      ? await api<{ data: T }>('PUT', `${props.path}/${start.id}`, props.body())
      : await api<{ data: T }>('POST', props.createPath ?? props.path, props.body());
    const saved = answer.data;
    props.onSaved(props.notice?.(saved) ?? `${noun[0]!.toUpperCase()}${noun.slice(1)} “${saved.name}” saved.`);
  });
  return (
    <EditorCard
      title={start ? `Edit ${noun} “${start.name}”` : `New ${noun}`}
      submitLabel={start ? `Save ${noun}` : `Create ${noun}`}
      save={save}
      onCancel={props.onClose}
    >
      {props.children}
    </EditorCard>
  );
}

/**
 * A card holding the form that creates or changes an item, with the API's error beside its buttons.
 * The first control takes the focus when it opens, and Escape closes it.
 */
export function EditorCard(props: {
  title: string;
  submitLabel: string;
  /** The save, run when the form is submitted (a `useAction`). */
  save: { run: () => Promise<unknown>; busy: boolean; error: Error | undefined };
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
      <Form label={props.title} onSubmit={() => void props.save.run()} class="form editor-form">
        {props.children}
        <ErrorNote error={props.save.error} />
        <div class="buttons">
          <button type="submit" disabled={props.save.busy}>
            {props.save.busy ? 'Saving…' : props.submitLabel}
          </button>
          <button type="button" class="secondary" onClick={props.onCancel}>
            Cancel
          </button>
        </div>
      </Form>
    </section>
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

/** The button that opens the editor of a new item. */
export function CreateButton(props: { crud: { create: () => void }; children: ComponentChildren }) {
  return (
    <button type="button" onClick={props.crud.create}>
      {props.children}
    </button>
  );
}

/**
 * The controls of a row of an editable list: its edit button, whatever else it has, and its delete
 * (asked first), after which the list says `deleted` and is loaded again.
 */
export function ItemActions<T>(props: {
  crud: EditableList<T>;
  item: T;
  what: string;
  editLabel?: string;
  deleteLabel?: string;
  consequence: string;
  onDelete: () => Promise<unknown>;
  deleted: string;
  onDeleted?: () => void;
  children?: ComponentChildren;
}) {
  const { crud } = props;
  return (
    <RowActions>
      <EditButton what={props.what} label={props.editLabel} onEdit={() => crud.edit(props.item)} />
      {props.children}
      <DeleteButton
        what={props.what}
        label={props.deleteLabel}
        consequence={props.consequence}
        onDelete={props.onDelete}
        onDeleted={() => {
          props.onDeleted?.();
          crud.changed(props.deleted);
        }}
      />
    </RowActions>
  );
}
