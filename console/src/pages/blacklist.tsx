/**
 * The blacklist: numbers the organization never calls or messages. Add one (with an optional name),
 * rename it (adding a listed number again renames it, as the API does), remove it. The list has no
 * search in the API, so neither here.
 */
import { useState } from 'preact/hooks';
import { api } from '../client/api';
import {
  DeleteButton,
  EditButton,
  EditorCard,
  ListView,
  Notice,
  RowActions,
  usePagedList,
  when,
  type Editing,
} from '../components/crud';
import { Field, Page, type Column } from '../components/ui';
import { useAction } from '../components/use-load';
import './settings.css';

type Entry = { number: string; name: string | null; addedAt: string };

export default function BlacklistPage() {
  const list = usePagedList<Entry>('/blacklist');
  const [editing, setEditing] = useState<Editing<Entry>>(null);
  const [notice, setNotice] = useState('');
  const changed = (text: string) => {
    setNotice(text);
    list.reload();
  };
  const columns: Column<Entry>[] = [
    { title: 'Number', cell: (e) => e.number },
    { title: 'Name', cell: (e) => e.name ?? '—' },
    { title: 'Added', cell: (e) => when(e.addedAt), class: 'wide-only' },
    {
      title: 'Actions',
      cell: (e) => (
        <RowActions>
          <EditButton what={e.number} label="Rename" onEdit={() => setEditing({ mode: 'edit', item: e })} />
          <DeleteButton
            what={e.number}
            label="Remove"
            consequence="Calls and chats to this number will be allowed again."
            onDelete={() => api('DELETE', '/blacklist/bulk/remove', [{ number: e.number }])}
            onDeleted={() => changed(`${e.number} removed from the blacklist.`)}
          />
        </RowActions>
      ),
    },
  ];
  return (
    <Page
      title="Blacklist"
      actions={
        <button type="button" onClick={() => setEditing({ mode: 'create' })}>
          Add a number
        </button>
      }
    >
      <div class="settings-section">
        {editing && (
          <EntryEditor
            key={editing.mode === 'edit' ? editing.item.number : 'new'}
            editing={editing}
            onClose={() => setEditing(null)}
            onSaved={(text) => {
              setEditing(null);
              changed(text);
            }}
          />
        )}
        {notice && <Notice>{notice}</Notice>}
        <ListView
          list={list}
          caption="Blacklisted numbers"
          columns={columns}
          rowKey={(e) => e.number}
          empty="No number is blacklisted."
        />
      </div>
    </Page>
  );
}

function EntryEditor(props: {
  editing: NonNullable<Editing<Entry>>;
  onSaved: (notice: string) => void;
  onClose: () => void;
}) {
  const start = props.editing.mode === 'edit' ? props.editing.item : undefined;
  const [number, setNumber] = useState(start?.number ?? '');
  const [name, setName] = useState(start?.name ?? '');
  const save = useAction(async () => {
    const answer = await api<{ message: string }>('POST', '/blacklist/bulk/add', [
      { number, name: name.trim() === '' ? null : name.trim() },
    ]);
    props.onSaved(start ? `${start.number} renamed.` : answer.message);
  });
  return (
    <EditorCard
      title={start ? `Rename ${start.number}` : 'Add a number to the blacklist'}
      submitLabel={start ? 'Save name' : 'Add to blacklist'}
      busy={save.busy}
      error={save.error}
      onSubmit={() => void save.run()}
      onCancel={props.onClose}
    >
      <Field label="Phone number" hint="7 to 15 digits, with an optional leading +">
        <input
          type="tel"
          required
          readOnly={start !== undefined}
          value={number}
          onInput={(e) => setNumber(e.currentTarget.value)}
        />
      </Field>
      <Field label="Name" hint="Optional: whose number it is">
        <input value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </Field>
    </EditorCard>
  );
}
