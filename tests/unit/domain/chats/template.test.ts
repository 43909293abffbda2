import { templateDecider, type TemplateEvent } from '../../../../domain/chats/template';
import { specFor } from '../../../support/decider-spec';

const spec = specFor(templateDecider);
const at = '2026-03-01T10:00:00.000Z';
const base = { templateId: 't1', organizationId: 'o1', at, name: 'EMI reminder', language: 'en' as const };

describe('chat template', () => {
  it('is created with placeholders of the organization record type', () => {
    const body = 'Hello {{first_name}}, your EMI of {{ emi_amount }} is due on {{emi_due_date}}.';
    const created: TemplateEvent = { type: 'ChatTemplateCreated', data: { ...base, body } };
    spec
      .given([])
      .when({ type: 'CreateChatTemplate', organizationType: 'collection', ...base, body })
      .then([created]);
    spec
      .given([created])
      .when({ type: 'CreateChatTemplate', organizationType: 'collection', ...base, body })
      .thenFails('invalid', 'Template already exists');
  });

  it('refuses placeholders that are not fields of the record type, naming them', () => {
    spec
      .given([])
      .when({
        type: 'CreateChatTemplate',
        organizationType: 'lead_generation',
        ...base,
        body: 'Hi {{first_name}}, loan {{loan_id}} {{nickname}}',
      })
      .thenFails('invalid', 'Validation failed');
    let caught: unknown;
    try {
      templateDecider.decide(
        {
          type: 'CreateChatTemplate',
          organizationType: 'lead_generation',
          ...base,
          body: 'Hi {{first_name}}, loan {{loan_id}} {{nickname}}',
        },
        templateDecider.initialState(),
      );
    } catch (error) {
      caught = error;
    }
    const errors = (caught as { details: { errors: string[] } }).details.errors;
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^body has unknown placeholders: \{\{loan_id\}\}, \{\{nickname\}\}/);
  });
});
