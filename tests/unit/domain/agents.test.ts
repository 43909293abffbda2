import { agentDecider, type AgentCommand, type AgentEvent } from '../../../domain/agents/agent';
import { specFor } from '../../support/decider-spec';

const at = '2026-03-01T10:00:00.000Z';
const spec = specFor(agentDecider);
const details = {
  name: 'Priya',
  description: '',
  language: 'hi' as const,
  voiceId: 'PAbs15oBevLzXsUu4dCi',
  greeting: 'Namaste {{first_name}}',
  lines: ['Your EMI of {{ emi_amount }} is due on {{emi_due_date}}'],
};
const create: AgentCommand = {
  type: 'CreateAgent',
  agentId: 'a1',
  organizationId: 'o1',
  organizationType: 'collection',
  at,
  ...details,
};
const created: AgentEvent = { type: 'AgentCreated', data: { agentId: 'a1', organizationId: 'o1', at, ...details } };

describe('agent', () => {
  it('creates an agent whose templates name customer record fields', () => spec.given([]).when(create).then([created]));

  it('refuses placeholders that are not fields of the organization records, naming them and where they are', () => {
    spec
      .given([])
      .when({ ...create, greeting: 'Hello {{name}}', lines: ['ok {{loan_id}}', 'due {{due}} and {{ amount }}'] })
      .thenFails('invalid', 'Validation failed', {
        errors: [
          expect.stringMatching(/^greeting has unknown placeholders: \{\{name\}\} /),
          expect.stringMatching(/^lines\[1\] has unknown placeholders: \{\{due\}\}, \{\{amount\}\} /),
        ],
      });
  });

  it('checks placeholders against the record of the organization type', () => {
    spec
      .given([])
      .when({
        ...create,
        organizationType: 'lead_generation',
        greeting: 'Hi {{first_name}}, lead {{lead_id}} of {{lead_date}}',
        lines: [],
      })
      .then([
        {
          ...created,
          data: { ...created.data, greeting: 'Hi {{first_name}}, lead {{lead_id}} of {{lead_date}}', lines: [] },
        },
      ]);
    spec
      .given([])
      .when({ ...create, organizationType: 'lead_generation', greeting: 'Loan {{loan_id}}', lines: [] })
      .thenFails('invalid', 'Validation failed');
    spec
      .given([])
      .when({ ...create, greeting: 'Lead {{lead_date}}', lines: [] })
      .thenFails('invalid', 'Validation failed');
  });

  it('accepts no greeting and no lines', () =>
    spec
      .given([])
      .when({ ...create, greeting: null, lines: [] })
      .then([{ ...created, data: { ...created.data, greeting: null, lines: [] } }]));

  it('cannot be created twice', () => spec.given([created]).when(create).thenFails('invalid', 'Agent already exists'));
});
