/**
 * AI agents: the voice, language and script that place the organization's calls and hold its chats.
 * The API lists, searches and creates them; it has no route to change or delete one, so neither does
 * this page (it says so).
 */
import { useState } from 'preact/hooks';
import {
  EditableListView,
  ItemEditor,
  useEditableList,
  when,
  type EditorProps,
  CreateButton,
} from '../components/crud';
import { SelectField, optionsOf } from '../components/select-field';
import { Field, Page, type Column } from '../components/ui';
import './settings.css';

type Agent = {
  id: string;
  name: string;
  description: string;
  language: string;
  voiceId: string;
  greeting: string | null;
  lines: string[];
  createdAt: string;
};

/** The service's twelve languages (spec 2.2), by code. */
const LANGUAGES: Record<string, string> = {
  en: 'English',
  hi: 'Hindi',
  mr: 'Marathi',
  ta: 'Tamil',
  te: 'Telugu',
  gu: 'Gujarati',
  kn: 'Kannada',
  ml: 'Malayalam',
  bn: 'Bengali',
  pa: 'Punjabi',
  od: 'Odia',
  as: 'Assamese',
};

/** The five voices (spec 2.1): their ids are fixed, their names are the speech engine's. */
const VOICES: Record<string, string> = {
  Ogbs15oBevLzXsUuTtA1: 'Kartik (male, deep and calm)',
  Owbs15oBevLzXsUurdA_: 'Rahul (male, bright and brisk)',
  PAbs15oBevLzXsUu4dCi: 'Nisha (female, warm and low)',
  PQbt15oBevLzXsUuNtD3: 'Tulsi (female, soft and high)',
  Pgbt15oBevLzXsUubdA6: 'Seema (female, clear and expressive)',
};

export default function AgentsPage() {
  const crud = useEditableList<Agent>('/agents', (a) => a.id);
  const columns: Column<Agent>[] = [
    { title: 'Name', cell: (a) => a.name },
    { title: 'Language', cell: (a) => LANGUAGES[a.language] ?? a.language },
    { title: 'Voice', cell: (a) => VOICES[a.voiceId]?.split(' (')[0] ?? a.voiceId },
    { title: 'Script', cell: (a) => <Script agent={a} />, class: 'wide-only' },
    { title: 'Created', cell: (a) => when(a.createdAt), class: 'wide-only' },
  ];
  return (
    <Page title="Agents" actions={<CreateButton crud={crud}>New agent</CreateButton>}>
      <div class="settings-section">
        <p class="api-note">An agent cannot be changed or deleted once created (the API offers neither).</p>
        <EditableListView
          crud={crud}
          editor={(editor) => <AgentEditor {...editor} />}
          searchLabel="Search agents"
          noun="agent"
          caption="AI agents"
          columns={columns}
          empty="No agents yet."
        />
      </div>
    </Page>
  );
}

function Script(props: { agent: Agent }) {
  const { greeting, lines, description } = props.agent;
  if (!greeting && lines.length === 0 && !description) return <>—</>;
  return (
    <details>
      <summary>
        {lines.length} line{lines.length === 1 ? '' : 's'}
      </summary>
      {description && <p>{description}</p>}
      {greeting && (
        <p>
          <strong>Greeting:</strong> {greeting}
        </p>
      )}
      {lines.length > 0 && (
        <ol>
          {lines.map((line, i) => (
            <li key={i}>{line}</li>
          ))}
        </ol>
      )}
    </details>
  );
}

/** A new agent: the API has no route to change one, so the editor only creates. */
function AgentEditor(props: EditorProps<Agent>) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [language, setLanguage] = useState('en');
  const [voiceId, setVoiceId] = useState(Object.keys(VOICES)[0]!);
  const [greeting, setGreeting] = useState('');
  const [lines, setLines] = useState('');
  const body = () => ({
    name,
    description,
    language,
    voiceId,
    ...(greeting.trim() && { greeting }),
    lines: lines
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean),
  });
  return (
    <ItemEditor {...props} noun="agent" path="/agents" body={body} notice={(agent) => `Agent “${agent.name}” created.`}>
      <Field label="Name">
        <input required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </Field>
      <SelectField label="Language" value={language} onChange={setLanguage} options={optionsOf(LANGUAGES)} />
      <SelectField label="Voice" value={voiceId} onChange={setVoiceId} options={optionsOf(VOICES)} />
      <div class="wide">
        <Field label="Description">
          <input maxLength={2000} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
        </Field>
      </div>
      <div class="wide">
        <Field label="Greeting" hint="May name fields of the customer record, for example {{first_name}}.">
          <textarea maxLength={1000} value={greeting} onInput={(e) => setGreeting(e.currentTarget.value)} />
        </Field>
      </div>
      <div class="wide">
        <Field label="Lines" hint="One line of the script per line, at most 50.">
          <textarea rows={4} value={lines} onInput={(e) => setLines(e.currentTarget.value)} />
        </Field>
      </div>
    </ItemEditor>
  );
}
