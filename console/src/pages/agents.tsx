/**
 * AI agents: the voice, language and script that place the organization's calls and hold its chats.
 * The API lists, searches and creates them; it has no route to change or delete one, so neither does
 * this page (it says so).
 */
import { useState } from 'preact/hooks';
import { api } from '../client/api';
import { EditorCard, ListView, Notice, SearchBar, SelectField, usePagedList, when } from '../components/crud';
import { Field, Page, type Column } from '../components/ui';
import { useAction } from '../components/use-load';
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
  const [search, setSearch] = useState('');
  const list = usePagedList<Agent>('/agents', { search });
  const [creating, setCreating] = useState(false);
  const [notice, setNotice] = useState('');
  const columns: Column<Agent>[] = [
    { title: 'Name', cell: (a) => a.name },
    { title: 'Language', cell: (a) => LANGUAGES[a.language] ?? a.language },
    { title: 'Voice', cell: (a) => VOICES[a.voiceId]?.split(' (')[0] ?? a.voiceId },
    { title: 'Script', cell: (a) => <Script agent={a} />, class: 'wide-only' },
    { title: 'Created', cell: (a) => when(a.createdAt), class: 'wide-only' },
  ];
  return (
    <Page
      title="Agents"
      actions={
        <button type="button" onClick={() => setCreating(true)}>
          New agent
        </button>
      }
    >
      <div class="settings-section">
        <p class="api-note">An agent cannot be changed or deleted once created (the API offers neither).</p>
        {creating && (
          <AgentEditor
            onClose={() => setCreating(false)}
            onSaved={(agent) => {
              setCreating(false);
              setNotice(`Agent “${agent.name}” created.`);
              list.reload();
            }}
          />
        )}
        {notice && <Notice>{notice}</Notice>}
        <SearchBar label="Search agents" onSearch={setSearch} />
        <ListView
          list={list}
          caption="AI agents"
          columns={columns}
          rowKey={(a) => a.id}
          empty={search ? `No agent matches “${search}”.` : 'No agents yet.'}
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

function AgentEditor(props: { onSaved: (agent: Agent) => void; onClose: () => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [language, setLanguage] = useState('en');
  const [voiceId, setVoiceId] = useState(Object.keys(VOICES)[0]!);
  const [greeting, setGreeting] = useState('');
  const [lines, setLines] = useState('');
  const save = useAction(async () => {
    const body = {
      name,
      description,
      language,
      voiceId,
      ...(greeting.trim() && { greeting }),
      lines: lines
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean),
    };
    props.onSaved((await api<{ data: Agent }>('POST', '/agents', body)).data);
  });
  return (
    <EditorCard
      title="New agent"
      submitLabel="Create agent"
      busy={save.busy}
      error={save.error}
      onSubmit={() => void save.run()}
      onCancel={props.onClose}
    >
      <Field label="Name">
        <input required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </Field>
      <SelectField label="Language" value={language} onChange={setLanguage}>
        {Object.entries(LANGUAGES).map(([code, label]) => (
          <option key={code} value={code}>
            {label}
          </option>
        ))}
      </SelectField>
      <SelectField label="Voice" value={voiceId} onChange={setVoiceId}>
        {Object.entries(VOICES).map(([id, label]) => (
          <option key={id} value={id}>
            {label}
          </option>
        ))}
      </SelectField>
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
    </EditorCard>
  );
}
