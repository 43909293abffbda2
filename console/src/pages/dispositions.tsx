/**
 * Dispositions (how a call or chat ended, as the agent records it) and their groups: list, search,
 * create, change and delete both; a group's members are chosen among the organization's dispositions.
 * The API refuses a duplicate name (409) and the deletion of a disposition still in a group (400): the
 * page shows its message where the operator acted.
 */
import { useState } from 'preact/hooks';
import { api } from '../client/api';
import {
  EditableListView,
  ItemEditor,
  SectionHeader,
  loadAll,
  startOf,
  useEditableList,
  when,
  type EditorProps,
  CreateButton,
  ItemActions,
} from '../components/crud';
import { ErrorNote, Field, Loading, Page, type Column } from '../components/ui';
import { useLoad } from '../components/use-load';
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
  const crud = useEditableList<Disposition>('/dispositions', (d) => d.id, { onChanged: props.onChanged });
  const columns: Column<Disposition>[] = [
    { title: 'Name', cell: (d) => d.name },
    { title: 'Description', cell: (d) => d.description || '—', class: 'wide-only' },
    { title: 'Priority', cell: (d) => d.priority },
    { title: 'Updated', cell: (d) => when(d.updatedAt), class: 'wide-only' },
    {
      title: 'Actions',
      cell: (d) => (
        <ItemActions
          crud={crud}
          item={d}
          what={d.name}
          consequence="A disposition still in a group cannot be deleted: remove it from its groups first."
          onDelete={() => api('DELETE', `/dispositions/${d.id}`)}
          deleted={`Disposition “${d.name}” deleted.`}
        />
      ),
    },
  ];
  return (
    <section class="settings-section" aria-labelledby="dispositions-heading">
      <SectionHeader id="dispositions-heading" title="Dispositions">
        <CreateButton crud={crud}>New disposition</CreateButton>
      </SectionHeader>
      <EditableListView
        crud={crud}
        editor={(editor) => <DispositionEditor {...editor} />}
        searchLabel="Search dispositions"
        noun="disposition"
        caption="Dispositions"
        columns={columns}
        empty="No dispositions yet."
      />
    </section>
  );
}

function DispositionEditor(props: EditorProps<Disposition>) {
  const start = startOf(props.editing);
  const [name, setName] = useState(start?.name ?? '');
  const [description, setDescription] = useState(start?.description ?? '');
  const [priority, setPriority] = useState(start ? String(start.priority) : '');
  return (
    <ItemEditor
      {...props}
      noun="disposition"
      path="/dispositions"
      body={() => ({ name, description, ...(priority !== '' && { priority: Number(priority) }) })}
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
    </ItemEditor>
  );
}

function GroupsSection(props: { version: number; onChanged: () => void }) {
  const crud = useEditableList<Group>('/dispositions/groups/list', (g) => g.id, {
    query: { expand: true },
    version: props.version,
    onChanged: props.onChanged,
  });
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
        <ItemActions
          crud={crud}
          item={g}
          what={g.name}
          consequence="Its dispositions stay; only the group goes."
          onDelete={() => api('DELETE', `/dispositions/groups/${g.id}`)}
          deleted={`Group “${g.name}” deleted.`}
        />
      ),
    },
  ];
  return (
    <section class="settings-section" aria-labelledby="groups-heading">
      <SectionHeader id="groups-heading" title="Disposition groups">
        <CreateButton crud={crud}>New group</CreateButton>
      </SectionHeader>
      <EditableListView
        crud={crud}
        editor={(editor) => <GroupEditor {...editor} version={props.version} />}
        searchLabel="Search groups"
        noun="group"
        caption="Disposition groups"
        columns={columns}
        empty="No groups yet."
      />
    </section>
  );
}

function GroupEditor(props: EditorProps<Group> & { version: number }) {
  const start = startOf(props.editing);
  const [name, setName] = useState(start?.name ?? '');
  const [description, setDescription] = useState(start?.description ?? '');
  const [members, setMembers] = useState<string[]>(start?.dispositions.map((d) => d.id) ?? []);
  return (
    <ItemEditor
      {...props}
      noun="group"
      path="/dispositions/groups"
      createPath="/dispositions/groups/create"
      body={() => ({ name, description, dispositions: members })}
    >
      <Field label="Group name">
        <input required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </Field>
      <Field label="Group description">
        <input maxLength={1000} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
      </Field>
      <MemberChoice version={props.version} chosen={members} onChange={setMembers} />
    </ItemEditor>
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
      <ErrorNote error={all.error} />
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
