/** A form's fields as one object of texts, with what binds a control to one of them, by its name. */
import { useState } from 'preact/hooks';

export function useDraft<T extends Record<string, string>>(initial: T | (() => T)) {
  const [draft, setDraft] = useState<T>(initial);
  /** Sets one field: for a choice's `onChange`. */
  const set = (field: keyof T & string) => (value: string) => setDraft((d) => ({ ...d, [field]: value }));
  /** The name, value and input handler of the control of `field`: `<input {...bind('name')} />`. */
  const bind = (field: keyof T & string) => ({
    name: field,
    value: draft[field] ?? '',
    onInput: (e: { currentTarget: { value: string } }) => set(field)(e.currentTarget.value),
  });
  /** The name, value and change handler of a choice (a SelectField, a ChoiceSelect) of `field`. */
  const choice = (field: keyof T & string) => ({ name: field, value: draft[field] ?? '', onChange: set(field) });
  return { draft, setDraft, set, bind, choice };
}
