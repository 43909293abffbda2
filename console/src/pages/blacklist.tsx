/**
 * The blacklist: numbers the organization never calls or messages. Add one (with an optional name),
 * rename it (adding a listed number again renames it, as the API does), remove it. The list has no
 * search in the API, so neither here.
 */
import { useState } from 'preact/hooks';
import { api } from '../client/api';
import {
  EditableListView,
  EditorCard,
  startOf,
  useEditableList,
  when,
  type EditorProps,
  CreateButton,
  ItemActions,
} from '../components/crud';
import { Field, Page, type Column } from '../components/ui';
import { useAction } from '../components/use-load';
import './settings.css';

type Entry = { number: string; name: string | null; addedAt: string };

export default function BlacklistPage() {
  const crud = useEditableList<Entry>('/blacklist', (e) => e.number);
  const columns: Column<Entry>[] = [
    { title: 'Number', cell: (e) => e.number },
    { title: 'Name', cell: (e) => e.name ?? '—' },
    { title: 'Added', cell: (e) => when(e.addedAt), class: 'wide-only' },
    {
      title: 'Actions',
      cell: (e) => (
        <ItemActions
          crud={crud}
          item={e}
          what={e.number}
          editLabel="Rename"
          deleteLabel="Remove"
          consequence="Calls and chats to this number will be allowed again."
          onDelete={() => api('DELETE', '/blacklist/bulk/remove', [{ number: e.number }])}
          deleted={`${e.number} removed from the blacklist.`}
        />
      ),
    },
  ];
  return (
    <Page title="Blacklist" actions={<CreateButton crud={crud}>Add a number</CreateButton>}>
      <div class="settings-section">
        <EditableListView
          crud={crud}
          editor={(editor) => <EntryEditor {...editor} />}
          caption="Blacklisted numbers"
          columns={columns}
          empty="No number is blacklisted."
        />
      </div>
    </Page>
  );
}

/** Adding a number, or renaming a listed one: adding it again renames it, as the API does. */
function EntryEditor(props: EditorProps<Entry>) {
  const start = startOf(props.editing);
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
      save={save}
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
