/**
 * The creation form, folded until opened (its lists are read only then). The types offered follow the
 * organization's type as its campaigns show it (the API tells it nowhere else); with no campaign yet
 * all three are offered, and the API's refusal of the wrong one says which are allowed.
 */
import { useState } from 'preact/hooks';
import { useLocation } from 'wouter-preact';
import { api } from '../../client/api';
import { ChoiceSelect } from '../../components/choice-select';
import type { Paged } from '../../components/crud';
import { SelectField } from '../../components/select-field';
import { ErrorNote, Field, Form } from '../../components/ui';
import { useAction, useLoad } from '../../components/use-load';
import { useDraft } from '../../components/use-draft';
import type { Campaign, CampaignType } from './model';

const LANGUAGES = [
  'english',
  'hindi',
  'bengali',
  'telugu',
  'marathi',
  'tamil',
  'gujarati',
  'kannada',
  'malayalam',
  'punjabi',
  'odia',
  'assamese',
];

const TYPE_NAMES: Record<CampaignType, string> = {
  emi: 'EMI collection',
  edi: 'EDI collection',
  lead: 'Lead generation',
};

export function CreateCampaign() {
  const [open, setOpen] = useState(false);
  return (
    <details class="card create" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Create a campaign</summary>
      {open && <CreateCampaignForm />}
    </details>
  );
}

type Draft = {
  name: string;
  campaignType: CampaignType | '';
  description: string;
  language: string;
  startDate: string;
  endDate: string;
  agentId: string;
  dispositionGroupId: string;
  tags: string;
  startTime: string;
  endTime: string;
  timezone: string;
  blackoutDates: string;
  maxConcurrentCalls: string;
  callsPerMinute: string;
  retryDelayMinutes: string;
  maxAttemptsPerDay: string;
  maxAttemptsTotal: string;
};

const EMPTY: Draft = {
  name: '',
  campaignType: '',
  description: '',
  language: '',
  startDate: '',
  endDate: '',
  agentId: '',
  dispositionGroupId: '',
  tags: '',
  startTime: '',
  endTime: '',
  timezone: '',
  blackoutDates: '',
  maxConcurrentCalls: '',
  callsPerMinute: '',
  retryDelayMinutes: '',
  maxAttemptsPerDay: '',
  maxAttemptsTotal: '',
};

const list = (text: string) =>
  text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
const whole = (text: string) => (text.trim() === '' ? undefined : Number(text));

/** A retry policy when any of its fields is filled (the others take the API's defaults). */
function retryOf(draft: Draft) {
  const policy = {
    ...(whole(draft.retryDelayMinutes) !== undefined && { delayMinutes: whole(draft.retryDelayMinutes) }),
    ...(whole(draft.maxAttemptsPerDay) !== undefined && { maxAttemptsPerDay: whole(draft.maxAttemptsPerDay) }),
    ...(whole(draft.maxAttemptsTotal) !== undefined && { maxAttemptsTotal: whole(draft.maxAttemptsTotal) }),
  };
  return Object.keys(policy).length > 0 ? policy : undefined;
}

/** The body the API takes: the optional fields left empty are left out. */
function bodyOf(draft: Draft) {
  const tags = list(draft.tags);
  const blackoutDates = list(draft.blackoutDates);
  const retryPolicy = retryOf(draft);
  return {
    name: draft.name.trim(),
    campaignType: draft.campaignType,
    ...(draft.description.trim() && { description: draft.description.trim() }),
    ...(draft.language && { language: draft.language }),
    ...(draft.startDate && { startDate: draft.startDate }),
    ...(draft.endDate && { endDate: draft.endDate }),
    ...(draft.agentId && { agentId: draft.agentId }),
    ...(draft.dispositionGroupId && { dispositionGroupId: draft.dispositionGroupId }),
    ...(tags.length > 0 && { tags }),
    ...(draft.startTime && { startTime: draft.startTime }),
    ...(draft.endTime && { endTime: draft.endTime }),
    ...(draft.timezone.trim() && { timezone: draft.timezone.trim() }),
    ...(blackoutDates.length > 0 && { blackoutDates }),
    ...(whole(draft.maxConcurrentCalls) !== undefined && { maxConcurrentCalls: whole(draft.maxConcurrentCalls) }),
    ...(whole(draft.callsPerMinute) !== undefined && { callsPerMinute: whole(draft.callsPerMinute) }),
    ...(retryPolicy && { retryPolicy }),
  };
}

function CreateCampaignForm() {
  const { draft, bind, choice } = useDraft<Draft>(EMPTY);
  const [, navigate] = useLocation();
  const sample = useLoad(() => api<Paged<Campaign>>('GET', '/campaigns', undefined, { limit: 1 }), []);
  const known = sample.data?.data[0]?.campaignType;
  let types: CampaignType[] = ['emi', 'edi', 'lead'];
  if (known) types = known === 'lead' ? ['lead'] : ['emi', 'edi'];
  const create = useAction(async () => {
    const created = await api<{ data: Campaign }>('POST', '/campaigns/create', bodyOf(draft));
    navigate(`/${created.data.id}`);
  });
  return (
    <Form label="Create a campaign" onSubmit={() => void create.run()}>
      <Field label="Name">
        <input required maxLength={200} {...bind('name')} />
      </Field>
      <SelectField
        label="Type"
        hint={known ? undefined : 'Collection organizations run EMI or EDI campaigns, lead generation ones Lead.'}
        required
        {...choice('campaignType')}
        none="Choose…"
        options={types.map((t) => ({ value: t, label: TYPE_NAMES[t] }))}
      />
      <SelectField
        label="Language"
        {...choice('language')}
        none="Not set"
        options={LANGUAGES.map((l) => ({ value: l, label: l[0]!.toUpperCase() + l.slice(1) }))}
      />
      <Field label="Starts on">
        <input type="date" {...bind('startDate')} />
      </Field>
      <Field label="Ends on">
        <input type="date" {...bind('endDate')} />
      </Field>
      <Field label="Calls from" hint="The customer's local time, inside the organization's calling hours">
        <input type="time" {...bind('startTime')} />
      </Field>
      <Field label="Calls until">
        <input type="time" {...bind('endTime')} />
      </Field>
      <Field label="Time zone" hint="IANA name; empty: Asia/Kolkata (a customer's own timezone comes first)">
        <input maxLength={64} placeholder="Asia/Kolkata" {...bind('timezone')} />
      </Field>
      <Field label="Blackout dates" hint="YYYY-MM-DD, separated by commas">
        <input {...bind('blackoutDates')} />
      </Field>
      <Field label="Calls at once" hint="Empty: 10">
        <input type="number" min={1} max={1000} {...bind('maxConcurrentCalls')} />
      </Field>
      <Field label="New calls per minute" hint="Empty: 30">
        <input type="number" min={1} max={6000} {...bind('callsPerMinute')} />
      </Field>
      <Field
        label="Retry unanswered after (minutes)"
        hint="Any retry field set: unanswered and busy customers are called again"
      >
        <input type="number" min={1} max={10080} {...bind('retryDelayMinutes')} />
      </Field>
      <Field label="Attempts a day" hint="Empty: 3">
        <input type="number" min={1} max={10} {...bind('maxAttemptsPerDay')} />
      </Field>
      <Field label="Attempts in all" hint="Empty: 6">
        <input type="number" min={1} max={20} {...bind('maxAttemptsTotal')} />
      </Field>
      <ChoiceSelect label="Agent" path="/agents" none="None" {...choice('agentId')} />
      <ChoiceSelect
        label="Disposition group"
        path="/dispositions/groups/list"
        none="None"
        {...choice('dispositionGroupId')}
      />
      <Field label="Tags" hint="Separated by commas">
        <input {...bind('tags')} />
      </Field>
      <Field label="Description">
        <textarea rows={2} maxLength={2000} {...bind('description')} />
      </Field>
      <ErrorNote error={create.error} />
      <button type="submit" disabled={create.busy}>
        {create.busy ? 'Creating…' : 'Create campaign'}
      </button>
    </Form>
  );
}
