/**
 * Dispositions (how a call or chat ended, as the agent records it) and their groups: list, search,
 * create, change and delete both; a group's members are chosen among the organization's dispositions.
 * The API refuses a duplicate name (409) and the deletion of a disposition still in a group (400): the
 * page shows its message where the operator acted.
 */
import { useState } from 'preact/hooks';
import { api } from '../client/api';
import {
  ActionError,
  DeleteButton,
  EditButton,
  EditorCard,
  ListView,
  Notice,
  RowActions,
  SearchBar,
  SectionHeader,
  loadAll,
  usePagedList,
  when,
  type Editing,
} from '../components/crud';
import { Field, Loading, Page, type Column } from '../components/ui';
import { useAction, useLoad } from '../components/use-load';
import './settings.css';

type Disposition = {
  id: string;
  name: string;
  description: string;
  priority: number;
  createdAt: string;
  updatedAt: string;
};

/** A group as listed with `expand=true`: its members in full. */
type Group = {
  id: string;
  name: string;
  description: string;
  dispositions: Disposition[];
  updatedAt: string;
};

export default function DispositionsPage() {
  // The groups' choices follow the dispositions: a change of one reloads the other.
  const [version, setVersion] = useState(0);
  const changed = () => setVersion((v) => v + 1);
  return (
    <Page title="Dispositions">
      <DispositionsSection onChanged={changed} />
      <GroupsSection version={version} onChanged={changed} />
    </Page>
  );
}

function DispositionsSection(props: { onChanged: () => void }) {
  const [search, setSearch] = useState('');
  const list = usePagedList<Disposition>('/dispositions', { search });
  const [editing, setEditing] = useState<Editing<Disposition>>(null);
  const [notice, setNotice] = useState('');
  const changed = (text: string) => {
    setNotice(text);
    list.reload();
    props.onChanged();
  };
  const columns: Column<Disposition>[] = [
    { title: 'Name', cell: (d) => d.name },
    { title: 'Description', cell: (d) => d.description || '—', class: 'wide-only' },
    { title: 'Priority', cell: (d) => d.priority },
    { title: 'Updated', cell: (d) => when(d.updatedAt), class: 'wide-only' },
    {
      title: 'Actions',
      cell: (d) => (
        <RowActions>
          <EditButton what={d.name} onEdit={() => setEditing({ mode: 'edit', item: d })} />
          <DeleteButton
            what={d.name}
            consequence="A disposition still in a group cannot be deleted: remove it from its groups first."
            onDelete={() => api('DELETE', `/dispositions/${d.id}`)}
            onDeleted={() => changed(`Disposition “${d.name}” deleted.`)}
          />
        </RowActions>
      ),
    },
  ];
  return (
    <section class="settings-section" aria-labelledby="dispositions-heading">
      <SectionHeader id="dispositions-heading" title="Dispositions">
        <button type="button" onClick={() => setEditing({ mode: 'create' })}>
          New disposition
        </button>
      </SectionHeader>
      {editing && (
        <DispositionEditor
          key={editing.mode === 'edit' ? editing.item.id : 'new'}
          editing={editing}
          onClose={() => setEditing(null)}
          onSaved={(saved) => {
            setEditing(null);
            changed(`Disposition “${saved.name}” saved.`);
          }}
        />
      )}
      {notice && <Notice>{notice}</Notice>}
      <SearchBar label="Search dispositions" onSearch={setSearch} />
      <ListView
        list={list}
        caption="Dispositions"
        columns={columns}
        rowKey={(d) => d.id}
        empty={search ? `No disposition matches “${search}”.` : 'No dispositions yet.'}
      />
    </section>
  );
}

function DispositionEditor(props: {
  editing: NonNullable<Editing<Disposition>>;
  onSaved: (saved: Disposition) => void;
  onClose: () => void;
}) {
  const start = props.editing.mode === 'edit' ? props.editing.item : undefined;
  const [name, setName] = useState(start?.name ?? '');
  const [description, setDescription] = useState(start?.description ?? '');
  const [priority, setPriority] = useState(start ? String(start.priority) : '');
  const save = useAction(async () => {
    const body = { name, description, ...(priority !== '' && { priority: Number(priority) }) };
    const answer = start
      ? await api<{ data: Disposition }>('PUT', `/dispositions/${start.id}`, body)
      : await api<{ data: Disposition }>('POST', '/dispositions', body);
    props.onSaved(answer.data);
  });
  return (
    <EditorCard
      title={start ? `Edit disposition “${start.name}”` : 'New disposition'}
      submitLabel={start ? 'Save disposition' : 'Create disposition'}
      busy={save.busy}
      error={save.error}
      onSubmit={() => void save.run()}
      onCancel={props.onClose}
    >
      <Field label="Name">
        <input required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </Field>
      <Field label="Priority" hint="0 to 1000">
        <input
          type="number"
          min={0}
          max={1000}
          step={1}
          value={priority}
          onInput={(e) => setPriority(e.currentTarget.value)}
        />
      </Field>
      <div class="wide">
        <Field label="Description">
          <textarea maxLength={1000} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
        </Field>
      </div>
    </EditorCard>
  );
}

function GroupsSection(props: { version: number; onChanged: () => void }) {
  const [search, setSearch] = useState('');
  const list = usePagedList<Group>('/dispositions/groups/list', { search, expand: true }, { version: props.version });
  const [editing, setEditing] = useState<Editing<Group>>(null);
  const [notice, setNotice] = useState('');
  const changed = (text: string) => {
    setNotice(text);
    list.reload();
    props.onChanged();
  };
  const columns: Column<Group>[] = [
    { title: 'Name', cell: (g) => g.name },
    { title: 'Description', cell: (g) => g.description || '—', class: 'wide-only' },
    {
      title: 'Members',
      cell: (g) =>
        g.dispositions.length === 0 ? (
          'None'
        ) : (
          <ul class="chips" aria-label={`Members of ${g.name}`}>
            {g.dispositions.map((d) => (
              <li key={d.id}>{d.name}</li>
            ))}
          </ul>
        ),
    },
    {
      title: 'Actions',
      cell: (g) => (
        <RowActions>
          <EditButton what={g.name} onEdit={() => setEditing({ mode: 'edit', item: g })} />
          <DeleteButton
            what={g.name}
            consequence="Its dispositions stay; only the group goes."
            onDelete={() => api('DELETE', `/dispositions/groups/${g.id}`)}
            onDeleted={() => changed(`Group “${g.name}” deleted.`)}
          />
        </RowActions>
      ),
    },
  ];
  return (
    <section class="settings-section" aria-labelledby="groups-heading">
      <SectionHeader id="groups-heading" title="Disposition groups">
        <button type="button" onClick={() => setEditing({ mode: 'create' })}>
          New group
        </button>
      </SectionHeader>
      {editing && (
        <GroupEditor
          key={editing.mode === 'edit' ? editing.item.id : 'new'}
          editing={editing}
          version={props.version}
          onClose={() => setEditing(null)}
          onSaved={(saved) => {
            setEditing(null);
            changed(`Group “${saved.name}” saved.`);
          }}
        />
      )}
      {notice && <Notice>{notice}</Notice>}
      <SearchBar label="Search groups" onSearch={setSearch} />
      <ListView
        list={list}
        caption="Disposition groups"
        columns={columns}
        rowKey={(g) => g.id}
        empty={search ? `No group matches “${search}”.` : 'No groups yet.'}
      />
    </section>
  );
}

function GroupEditor(props: {
  editing: NonNullable<Editing<Group>>;
  version: number;
  onSaved: (saved: { name: string }) => void;
  onClose: () => void;
}) {
  const start = props.editing.mode === 'edit' ? props.editing.item : undefined;
  const [name, setName] = useState(start?.name ?? '');
  const [description, setDescription] = useState(start?.description ?? '');
  const [members, setMembers] = useState<string[]>(start?.dispositions.map((d) => d.id) ?? []);
  const save = useAction(async () => {
    const body = { name, description, dispositions: members };
    const answer = start
      ? await api<{ data: Group }>('PUT', `/dispositions/groups/${start.id}`, body)
      : await api<{ data: Group }>('POST', '/dispositions/groups/create', body);
    props.onSaved(answer.data);
  });
  return (
    <EditorCard
      title={start ? `Edit group “${start.name}”` : 'New group'}
      submitLabel={start ? 'Save group' : 'Create group'}
      busy={save.busy}
      error={save.error}
      onSubmit={() => void save.run()}
      onCancel={props.onClose}
    >
      <Field label="Group name">
        <input required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </Field>
      <Field label="Group description">
        <input maxLength={1000} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
      </Field>
      <MemberChoice version={props.version} chosen={members} onChange={setMembers} />
    </EditorCard>
  );
}

/** The organization's dispositions as checkboxes, narrowed by a filter, for a group's members. */
function MemberChoice(props: { version: number; chosen: string[]; onChange: (ids: string[]) => void }) {
  const all = useLoad(() => loadAll<Disposition>('/dispositions'), [props.version]);
  const [filter, setFilter] = useState('');
  const toggle = (id: string, on: boolean) =>
    props.onChange(on ? [...props.chosen, id] : props.chosen.filter((chosen) => chosen !== id));
  const shown = (all.data ?? []).filter((d) => d.name.toLowerCase().includes(filter.trim().toLowerCase()));
  return (
    <fieldset class="wide">
      <legend>Member dispositions ({props.chosen.length} chosen)</legend>
      {all.error && <ActionError error={all.error} />}
      {!all.data && !all.error && <Loading what="the dispositions" />}
      {all.data && all.data.length === 0 && <p class="empty">There are no dispositions to choose yet.</p>}
      {all.data && all.data.length > 0 && (
        <>
          <Field label="Filter dispositions">
            <input type="search" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
          </Field>
          <ul class="choices">
            {shown.map((d) => (
              <li key={d.id}>
                <label>
                  <input
                    type="checkbox"
                    checked={props.chosen.includes(d.id)}
                    onChange={(e) => toggle(d.id, e.currentTarget.checked)}
                  />
                  {d.name}
                </label>
              </li>
            ))}
          </ul>
        </>
      )}
    </fieldset>
  );
}
