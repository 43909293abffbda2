/**
 * A select whose options are a list the API answers (agents, dispositions, templates, campaigns): the
 * operator picks by name, the form sends the id. When the list cannot be read (the token lacks its
 * scope, say) the API's reason is shown and the id can be typed instead.
 */
import { api } from '../client/api';
import { Field } from './ui';
import { useLoad } from './use-load';

type Named = { id: string; name: string };

export function ChoiceSelect(props: {
  label: string;
  /** The list's path below /api/v1, read once: its first 100 items. */
  path: string;
  name: string;
  value: string;
  onChange: (id: string) => void;
  required?: boolean;
  /** The option for "none", when choosing is optional. */
  none?: string;
  hint?: string;
}) {
  const list = useLoad(
    () => api<{ data: Named[] }>('GET', props.path, undefined, { page: 1, limit: 100 }),
    [props.path],
  );
  if (list.error)
    return (
      <Field label={`${props.label} id`} hint={`Cannot list them (${list.error.message}): type the id.`}>
        <input
          name={props.name}
          required={props.required}
          value={props.value}
          onInput={(e) => props.onChange(e.currentTarget.value.trim())}
        />
      </Field>
    );
  const listed = list.data?.data ?? [];
  // A value from elsewhere (the address, say) that is not among the first 100 still shows as chosen.
  const items =
    props.value && list.data && !listed.some((i) => i.id === props.value)
      ? [...listed, { id: props.value, name: props.value }]
      : listed;
  const empty = list.data && listed.length === 0 ? 'There is none yet.' : undefined;
  return (
    <Field label={props.label} hint={empty ?? props.hint}>
      <select
        name={props.name}
        required={props.required}
        value={props.value}
        onChange={(e) => props.onChange(e.currentTarget.value)}
      >
        <option value="">{list.loading ? 'Loading…' : (props.none ?? 'Choose…')}</option>
        {items.map((item) => (
          <option key={item.id} value={item.id}>
            {item.name}
          </option>
        ))}
      </select>
    </Field>
  );
}
