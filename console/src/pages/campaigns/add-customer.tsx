/** Adding one customer: the record's fields as the organization's type has them (spec 2.7). */
import { useState } from 'preact/hooks';
import { api } from '../../client/api';
import { Notice } from '../../components/crud';
import { SelectField } from '../../components/select-field';
import { ErrorNote, Field, Form } from '../../components/ui';
import { useDraft } from '../../components/use-draft';
import { useAction } from '../../components/use-load';
import { NUMBER_FIELDS, PAYMENT_STATUSES, type KeyField } from './model';

type Input = {
  name: string;
  label: string;
  type?: 'text' | 'number' | 'date' | 'tel';
  required: boolean;
  hint?: string;
};

const COLLECTION: Input[] = [
  { name: 'loan_id', label: 'Loan id', required: true },
  { name: 'first_name', label: 'First name', required: true },
  { name: 'last_name', label: 'Last name', required: true },
  { name: 'phone_number', label: 'Phone number', type: 'tel', required: true, hint: 'Digits, with + first if any' },
  { name: 'loan_amount', label: 'Loan amount', type: 'number', required: true },
  { name: 'emi_amount', label: 'EMI amount', type: 'number', required: true },
  { name: 'loan_period', label: 'Loan period (months)', type: 'number', required: true },
  { name: 'current_emi', label: 'Current EMI number', type: 'number', required: true },
  { name: 'emi_due_date', label: 'EMI due on', type: 'date', required: true },
  { name: 'language', label: 'Language', required: false, hint: 'A word such as english or hindi' },
];

const LEAD: Input[] = [
  { name: 'lead_id', label: 'Lead id', required: false, hint: 'Made up by the service when left empty' },
  { name: 'first_name', label: 'First name', required: true },
  { name: 'last_name', label: 'Last name', required: true },
  { name: 'phone_number', label: 'Phone number', type: 'tel', required: true, hint: 'Digits, with + first if any' },
  { name: 'lead_date', label: 'Lead date', type: 'date', required: true },
  { name: 'language', label: 'Language', required: false, hint: 'A word such as english or hindi' },
];

/** The record the API takes: empty fields left out, amounts and counts as numbers. */
function recordOf(values: Record<string, string>): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(values)) {
    const trimmed = value.trim();
    if (trimmed) record[name] = NUMBER_FIELDS.has(name) ? Number(trimmed) : trimmed;
  }
  return record;
}

export function AddCustomer(props: { campaignId: string; keyField: KeyField; onAdded: () => void }) {
  const inputs = props.keyField === 'loan_id' ? COLLECTION : LEAD;
  const { draft: values, setDraft: setValues, bind, choice } = useDraft<Record<string, string>>({});
  const [added, setAdded] = useState<string | undefined>(undefined);
  const add = useAction(async () => {
    setAdded(undefined);
    const answer = await api<{ data: { id: string } }>('POST', '/customers/add', {
      campaignId: props.campaignId,
      data: recordOf(values),
    });
    setValues({});
    setAdded(answer.data.id);
    props.onAdded();
  });
  return (
    <details class="card">
      <summary>Add one customer</summary>
      <Form label="Add one customer" class="form form-grid" onSubmit={() => void add.run()}>
        {inputs.map((input) => (
          <Field key={input.name} label={input.label} hint={input.hint}>
            <input
              type={input.type ?? 'text'}
              required={input.required}
              {...(input.type === 'number' && { min: 0, step: 'any' })}
              {...bind(input.name)}
            />
          </Field>
        ))}
        {props.keyField === 'loan_id' && (
          <SelectField
            label="Payment status"
            required
            {...choice('payment_status')}
            none="Choose…"
            options={PAYMENT_STATUSES}
          />
        )}
        <ErrorNote error={add.error} />
        {added && <Notice>Added customer {added}.</Notice>}
        <button type="submit" disabled={add.busy}>
          {add.busy ? 'Adding…' : 'Add customer'}
        </button>
      </Form>
    </details>
  );
}
