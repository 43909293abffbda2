/**
 * A workflow's steps, edited as a list: each step a group of the fields of its type (docs/workflows.md),
 * moved up or down, removed, added. A branch's targets are chosen among the steps and follow them when
 * they move; they are sent as the target's name when it has one, else as its index.
 */
import { ListedChoice } from '../components/choice-select';
import { SelectField, optionsOf, type Option } from '../components/select-field';
import { Field } from '../components/ui';

export type Target = number | string;

/** A step as the API takes and answers it. */
export type Step =
  | {
      type: 'send_chat';
      id?: string;
      templateId: string;
      conversationSettings?: { agentId: string; dispositionId: string };
    }
  | { type: 'place_call'; id?: string; agentId: string; dispositionId: string }
  | { type: 'wait'; id?: string; seconds: number }
  | { type: 'wait_for_outcome'; id?: string; timeoutSeconds?: number }
  | {
      type: 'branch';
      id?: string;
      on: 'status' | 'disposition';
      cases: { equals: string; goTo: Target }[];
      otherwise?: Target;
    }
  | { type: 'end'; id?: string };

export type StepType = Step['type'];

export const STEP_TYPES: Record<StepType, string> = {
  place_call: 'Place a call',
  send_chat: 'Send a chat',
  wait: 'Wait',
  wait_for_outcome: 'Wait for the outcome',
  branch: 'Branch',
  end: 'End',
};

const UNITS = { seconds: 1, minutes: 60, hours: 3600, days: 86400 } as const;
type Unit = keyof typeof UNITS;

/** A step being edited: every type's fields as text, so changing the type loses nothing typed. */
export type DraftStep = {
  /** Stable while the step moves: what a branch's target refers to. */
  key: number;
  type: StepType;
  id: string;
  templateId: string;
  agentId: string;
  dispositionId: string;
  chatAgentId: string;
  chatDispositionId: string;
  waitAmount: string;
  waitUnit: Unit;
  timeoutSeconds: string;
  on: 'status' | 'disposition';
  /** `goTo` is the key of the target step, or '' when none is chosen. */
  cases: { equals: string; goTo: string }[];
  otherwise: string;
};

let nextKey = 1;

export function emptyStep(type: StepType = 'place_call'): DraftStep {
  return {
    key: nextKey++,
    type,
    id: '',
    templateId: '',
    agentId: '',
    dispositionId: '',
    chatAgentId: '',
    chatDispositionId: '',
    waitAmount: '1',
    waitUnit: 'hours',
    timeoutSeconds: '',
    on: 'status',
    cases: [{ equals: '', goTo: '' }],
    otherwise: '',
  };
}

/** A seconds count in the largest unit that divides it. */
function waitOf(seconds: number): { waitAmount: string; waitUnit: Unit } {
  const unit = (['days', 'hours', 'minutes'] as const).find((u) => seconds % UNITS[u] === 0) ?? 'seconds';
  return { waitAmount: String(seconds / UNITS[unit]), waitUnit: unit };
}

/** The API's steps as drafts; a target naming no step is left unchosen. */
export function draftsOf(steps: readonly Step[]): DraftStep[] {
  const drafts = steps.map((step) => ({ ...emptyStep(step.type), id: step.id ?? '' }));
  const keyOf = (target: Target | undefined): string => {
    if (target === undefined) return '';
    const found = typeof target === 'number' ? drafts[target] : drafts.find((d) => d.id === target);
    return found ? String(found.key) : '';
  };
  return steps.map((step, i) => {
    const draft = drafts[i]!;
    switch (step.type) {
      case 'send_chat':
        return {
          ...draft,
          templateId: step.templateId,
          chatAgentId: step.conversationSettings?.agentId ?? '',
          chatDispositionId: step.conversationSettings?.dispositionId ?? '',
        };
      case 'place_call':
        return { ...draft, agentId: step.agentId, dispositionId: step.dispositionId };
      case 'wait':
        return { ...draft, ...waitOf(step.seconds) };
      case 'wait_for_outcome':
        return { ...draft, timeoutSeconds: step.timeoutSeconds === undefined ? '' : String(step.timeoutSeconds) };
      case 'branch':
        return {
          ...draft,
          on: step.on,
          cases: step.cases.map((c) => ({ equals: c.equals, goTo: keyOf(c.goTo) })),
          otherwise: keyOf(step.otherwise),
        };
      case 'end':
        return draft;
      default:
        return assertNever(step);
    }
  });
}

function assertNever(value: never): never {
  throw new Error(`Unknown step ${JSON.stringify(value)}`);
}

/** The drafts as the API takes them; the API judges what is missing or wrong. */
export function stepsOf(drafts: readonly DraftStep[]): Step[] {
  const targetOf = (key: string): Target | undefined => {
    const index = drafts.findIndex((d) => String(d.key) === key);
    if (index < 0) return undefined;
    return drafts[index]!.id.trim() || index;
  };
  return drafts.map((d): Step => {
    const id = d.id.trim() ? { id: d.id.trim() } : {};
    switch (d.type) {
      case 'send_chat':
        return {
          type: 'send_chat',
          ...id,
          templateId: d.templateId,
          ...((d.chatAgentId || d.chatDispositionId) && {
            conversationSettings: { agentId: d.chatAgentId, dispositionId: d.chatDispositionId },
          }),
        };
      case 'place_call':
        return { type: 'place_call', ...id, agentId: d.agentId, dispositionId: d.dispositionId };
      case 'wait':
        return { type: 'wait', ...id, seconds: Math.round(Number(d.waitAmount) * UNITS[d.waitUnit]) };
      case 'wait_for_outcome':
        return {
          type: 'wait_for_outcome',
          ...id,
          ...(d.timeoutSeconds && { timeoutSeconds: Number(d.timeoutSeconds) }),
        };
      case 'branch': {
        const otherwise = targetOf(d.otherwise);
        return {
          type: 'branch',
          ...id,
          on: d.on,
          cases: d.cases.map((c) => ({ equals: c.equals, goTo: targetOf(c.goTo) ?? '' })),
          ...(otherwise !== undefined && { otherwise }),
        };
      }
      case 'end':
        return { type: 'end', ...id };
      default:
        return assertNever(d.type);
    }
  });
}

/** One line saying what a step does, for the list of workflows. */
export function stepSummary(step: Step): string {
  switch (step.type) {
    case 'send_chat':
      return 'Send a chat';
    case 'place_call':
      return 'Place a call';
    case 'wait': {
      const { waitAmount, waitUnit } = waitOf(step.seconds);
      return `Wait ${waitAmount} ${waitAmount === '1' ? waitUnit.slice(0, -1) : waitUnit}`;
    }
    case 'wait_for_outcome':
      return step.timeoutSeconds ? `Wait for the outcome (at most ${step.timeoutSeconds} s)` : 'Wait for the outcome';
    case 'branch':
      return `Branch on ${step.on} (${step.cases.length} case${step.cases.length === 1 ? '' : 's'})`;
    case 'end':
      return 'End';
    default:
      return assertNever(step);
  }
}

/** The choices a step's fields offer: loaded, still loading (undefined), or not listable (an Error). */
export type Choices = {
  agents: Option[] | Error | undefined;
  dispositions: Option[] | Error | undefined;
  templates: Option[] | Error | undefined;
};

const OUTCOMES = {
  status: ['Completed', 'No Contact', 'Failed', 'timeout', 'not_placed', 'none'],
  disposition: [] as string[],
};

/** The steps of a workflow being edited. */
export function StepsEditor(props: { drafts: DraftStep[]; choices: Choices; onChange: (drafts: DraftStep[]) => void }) {
  const { drafts, onChange } = props;
  const update = (key: number, change: Partial<DraftStep>) =>
    onChange(drafts.map((d) => (d.key === key ? { ...d, ...change } : d)));
  const move = (index: number, by: -1 | 1) => {
    const next = [...drafts];
    const [moved] = next.splice(index, 1);
    next.splice(index + by, 0, moved!);
    onChange(next);
  };
  const remove = (key: number) => onChange(drafts.filter((d) => d.key !== key));
  const targets: Option[] = drafts.map((d, i) => ({
    value: String(d.key),
    label: `Step ${i + 1}: ${STEP_TYPES[d.type]}${d.id.trim() ? ` (${d.id.trim()})` : ''}`,
  }));
  const dispositionNames =
    props.choices.dispositions instanceof Array ? props.choices.dispositions.map((o) => o.label) : [];
  return (
    <fieldset class="wide">
      <legend>Steps ({drafts.length})</legend>
      <ol class="steps">
        {drafts.map((d, i) => (
          <li key={d.key}>
            <fieldset class="step">
              <legend>
                Step {i + 1}: {STEP_TYPES[d.type]}
              </legend>
              <SelectField
                label="Type"
                value={d.type}
                options={optionsOf(STEP_TYPES)}
                onChange={(value) => update(d.key, { type: value as StepType })}
              />
              <Field label="Step name" hint="Optional: a name branches can go to">
                <input maxLength={100} value={d.id} onInput={(e) => update(d.key, { id: e.currentTarget.value })} />
              </Field>
              <StepFields
                draft={d}
                choices={props.choices}
                targets={targets.filter((t) => t.value !== String(d.key))}
                suggestions={d.on === 'status' ? OUTCOMES.status : dispositionNames}
                onChange={(change) => update(d.key, change)}
              />
              <div class="buttons">
                <button
                  type="button"
                  class="secondary"
                  disabled={i === 0}
                  aria-label={`Move step ${i + 1} up`}
                  onClick={() => move(i, -1)}
                >
                  Up
                </button>
                <button
                  type="button"
                  class="secondary"
                  disabled={i === drafts.length - 1}
                  aria-label={`Move step ${i + 1} down`}
                  onClick={() => move(i, 1)}
                >
                  Down
                </button>
                <button
                  type="button"
                  class="secondary"
                  disabled={drafts.length === 1}
                  aria-label={`Remove step ${i + 1}`}
                  onClick={() => remove(d.key)}
                >
                  Remove
                </button>
              </div>
            </fieldset>
          </li>
        ))}
      </ol>
      <div class="buttons">
        <button type="button" class="secondary" onClick={() => onChange([...drafts, emptyStep('wait')])}>
          Add a step
        </button>
      </div>
    </fieldset>
  );
}

function StepFields(props: {
  draft: DraftStep;
  choices: Choices;
  targets: Option[];
  suggestions: string[];
  onChange: (change: Partial<DraftStep>) => void;
}) {
  const { draft: d, choices, onChange } = props;
  switch (d.type) {
    case 'place_call':
      return (
        <>
          <ListedChoice
            required
            label="Agent"
            value={d.agentId}
            options={choices.agents}
            onChange={(agentId) => onChange({ agentId })}
          />
          <ListedChoice
            required
            label="Disposition"
            value={d.dispositionId}
            options={choices.dispositions}
            onChange={(dispositionId) => onChange({ dispositionId })}
          />
        </>
      );
    case 'send_chat':
      return (
        <>
          <ListedChoice
            required
            label="Chat template"
            value={d.templateId}
            options={choices.templates}
            onChange={(templateId) => onChange({ templateId })}
          />
          <ListedChoice
            label="Conversation agent"
            none="None"
            value={d.chatAgentId}
            options={choices.agents}
            onChange={(chatAgentId) => onChange({ chatAgentId })}
          />
          <ListedChoice
            label="Conversation disposition"
            none="None"
            value={d.chatDispositionId}
            options={choices.dispositions}
            onChange={(chatDispositionId) => onChange({ chatDispositionId })}
          />
        </>
      );
    case 'wait':
      return (
        <>
          <Field label="Wait for">
            <input
              type="number"
              required
              min={1}
              step="any"
              value={d.waitAmount}
              onInput={(e) => onChange({ waitAmount: e.currentTarget.value })}
            />
          </Field>
          <SelectField
            label="Unit"
            value={d.waitUnit}
            options={Object.keys(UNITS)}
            onChange={(value) => onChange({ waitUnit: value as Unit })}
          />
        </>
      );
    case 'wait_for_outcome':
      return (
        <Field label="Give up after (seconds)" hint="Optional: without it, waits as long as it takes">
          <input
            type="number"
            min={1}
            value={d.timeoutSeconds}
            onInput={(e) => onChange({ timeoutSeconds: e.currentTarget.value })}
          />
        </Field>
      );
    case 'branch':
      return <BranchFields {...props} />;
    case 'end':
      return <p class="api-note">Ends the run.</p>;
    default:
      return assertNever(d.type);
  }
}

function BranchFields(props: {
  draft: DraftStep;
  targets: Option[];
  suggestions: string[];
  onChange: (change: Partial<DraftStep>) => void;
}) {
  const { draft: d, onChange } = props;
  const listId = `outcomes-${d.key}`;
  const setCase = (index: number, change: Partial<DraftStep['cases'][number]>) =>
    onChange({ cases: d.cases.map((c, i) => (i === index ? { ...c, ...change } : c)) });
  return (
    <>
      <SelectField label="Branch on" value={d.on} onChange={(value) => onChange({ on: value as DraftStep['on'] })}>
        <option value="status">the outcome's status</option>
        <option value="disposition">the outcome's disposition</option>
      </SelectField>
      <datalist id={listId}>
        {props.suggestions.map((s) => (
          <option key={s} value={s} />
        ))}
      </datalist>
      <ol class="cases">
        {d.cases.map((c, i) => (
          <li key={i} class="case">
            <Field label={`Case ${i + 1}: when it is`}>
              <input
                required
                list={listId}
                value={c.equals}
                onInput={(e) => setCase(i, { equals: e.currentTarget.value })}
              />
            </Field>
            <ListedChoice
              required
              label={`Case ${i + 1}: go to`}
              value={c.goTo}
              options={props.targets}
              onChange={(goTo) => setCase(i, { goTo })}
            />
            <button
              type="button"
              class="secondary"
              disabled={d.cases.length === 1}
              aria-label={`Remove case ${i + 1}`}
              onClick={() => onChange({ cases: d.cases.filter((_, j) => j !== i) })}
            >
              Remove case
            </button>
          </li>
        ))}
      </ol>
      <div class="buttons">
        <button
          type="button"
          class="secondary"
          onClick={() => onChange({ cases: [...d.cases, { equals: '', goTo: '' }] })}
        >
          Add a case
        </button>
      </div>
      <ListedChoice
        label="Otherwise go to"
        none="The next step"
        value={d.otherwise}
        options={props.targets}
        onChange={(otherwise) => onChange({ otherwise })}
      />
    </>
  );
}
