/**
 * A choice among the organization's things (agents, dispositions, templates, campaigns): the operator
 * picks by name, the form sends the id. When they cannot be listed (the token lacks the scope, say)
 * the API's reason is shown and the id can be typed instead.
 */
import { api } from '../client/api';
import { SelectField, type Option } from './select-field';
import { Field } from './ui';
import { useLoad } from './use-load';

type ChoiceProps = {
  label: string;
  name?: string;
  value: string;
  onChange: (id: string) => void;
  required?: boolean;
  /** The option for "none", when choosing is optional. */
  none?: string;
  hint?: string;
};

/** A choice among options loaded elsewhere: still loading (undefined), loaded, or not listable (an Error). */
export function ListedChoice(props: ChoiceProps & { options: readonly Option[] | Error | undefined }) {
  const { options } = props;
  if (options instanceof Error)
    return (
      <Field label={`${props.label} id`} hint={`Cannot list them (${options.message}): type the id.`}>
        <input
          name={props.name}
          required={props.required}
          value={props.value}
          onInput={(e) => props.onChange(e.currentTarget.value.trim())}
        />
      </Field>
    );
  // A value from elsewhere (the address, say) that is not listed still shows as chosen.
  const unlisted = options && props.value && !options.some((o) => o.value === props.value);
  return (
    <SelectField
      label={props.label}
      hint={props.hint}
      name={props.name}
      required={props.required}
      value={props.value}
      onChange={props.onChange}
      none={options ? (props.none ?? 'Choose…') : 'Loading…'}
      options={unlisted ? [...options, { value: props.value, label: `${props.value} (not listed)` }] : options}
    />
  );
}

/** A choice among a list of the API (its path below /api/v1), read once: its first 100 items. */
export function ChoiceSelect(props: ChoiceProps & { path: string }) {
  const list = useLoad(
    () => api<{ data: { id: string; name: string }[] }>('GET', props.path, undefined, { page: 1, limit: 100 }),
    [props.path],
  );
  const options = list.data?.data.map((item) => ({ value: item.id, label: item.name }));
  const hint = options?.length === 0 ? 'There is none yet.' : props.hint;
  return <ListedChoice {...props} hint={hint} options={list.error ?? options} />;
}
