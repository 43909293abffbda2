/** A labelled choice among options: fixed ones (statuses, languages) or a list the API answers. */
import type { ComponentChildren } from 'preact';
import { Field } from './ui';

export type Option = { value: string; label: string; group?: string };

/** Options as values shown as they are, or as values with labels (and groups). */
export type Options = readonly (string | Option)[];

const optionOf = (option: string | Option): Option =>
  typeof option === 'string' ? { value: option, label: option } : option;

/** Options of a record from value to label: `{en: 'English'}`. */
export const optionsOf = (labels: Record<string, string>): Option[] =>
  Object.entries(labels).map(([value, label]) => ({ value, label }));

function OptionList(props: { options: Options }) {
  const options = props.options.map(optionOf);
  const groups = [...new Set(options.map((o) => o.group ?? ''))];
  return (
    <>
      {groups.map((group) => {
        const members = options
          .filter((o) => (o.group ?? '') === group)
          .map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ));
        return group ? (
          <optgroup key={group} label={group}>
            {members}
          </optgroup>
        ) : (
          members
        );
      })}
    </>
  );
}

/** A select named by its label alone (Field labels it `for` its id, so its options are not read as its name). */
export function SelectField(props: {
  label: string;
  hint?: string;
  name?: string;
  value: string;
  required?: boolean;
  /** The first option, for "nothing chosen" (its value is empty). */
  none?: string;
  options?: Options;
  onChange: (value: string) => void;
  children?: ComponentChildren;
}) {
  return (
    <Field label={props.label} hint={props.hint}>
      <select
        name={props.name}
        required={props.required}
        value={props.value}
        onChange={(e) => props.onChange(e.currentTarget.value)}
      >
        {props.none !== undefined && <option value="">{props.none}</option>}
        {props.options && <OptionList options={props.options} />}
        {props.children}
      </select>
    </Field>
  );
}
