/**
 * A chat template: the message sent to start a chat, in one language, with `{{field}}` placeholders
 * filled from the customer's record. A placeholder naming a field the organization's records do not
 * have is refused when the template is created, rather than sent as a blank to every customer.
 */
import type { LanguageCode } from '../shared/languages';
import { unknownPlaceholders } from '../shared/placeholders';
import { recordFields } from '../customers/record';
import type { OrganizationType } from '../organizations/organization';
import { assertNever, type Decider } from '../shared/decider';
import { invalid } from '../shared/errors';

export const chatTemplateStreamId = (templateId: string) => `chatTemplate-${templateId}`;

export const TEMPLATE_NOT_FOUND = 'Template not found';
export const TEMPLATE_FORBIDDEN = 'Access denied - Template belongs to another organization';

export type TemplateDetails = { name: string; language: LanguageCode; body: string };

export type TemplateState =
  { status: 'none' } | ({ status: 'active'; templateId: string; organizationId: string } & TemplateDetails);

export type TemplateCommand = {
  type: 'CreateChatTemplate';
  templateId: string;
  organizationId: string;
  organizationType: OrganizationType;
  at: string;
} & TemplateDetails;

export type TemplateEvent = {
  type: 'ChatTemplateCreated';
  data: { templateId: string; organizationId: string; at: string } & TemplateDetails;
};

export const templateEventTypes = ['ChatTemplateCreated'] as const satisfies readonly TemplateEvent['type'][];

/** The message naming the body's placeholders that are not fields of the organization's records, if any. */
export function templatePlaceholderErrors(organizationType: OrganizationType, body: string): string[] {
  const fields = recordFields(organizationType);
  const unknown = unknownPlaceholders(body, fields);
  return unknown.length === 0
    ? []
    : [
        `body has unknown placeholders: ${unknown.map((name) => `{{${name}}}`).join(', ')} (customer record fields: ${fields.join(', ')})`,
      ];
}

export function decide(command: TemplateCommand, state: TemplateState): TemplateEvent[] {
  switch (command.type) {
    case 'CreateChatTemplate': {
      if (state.status !== 'none') throw invalid('Template already exists');
      const errors = templatePlaceholderErrors(command.organizationType, command.body);
      if (errors.length > 0) throw invalid('Validation failed', { errors });
      const { type: _type, organizationType: _orgType, ...data } = command;
      return [{ type: 'ChatTemplateCreated', data }];
    }
    default:
      return assertNever(command.type);
  }
}

export function evolve(state: TemplateState, event: TemplateEvent): TemplateState {
  switch (event.type) {
    case 'ChatTemplateCreated': {
      const { at: _at, ...template } = event.data;
      return { status: 'active', ...template };
    }
    default:
      return assertNever(event.type);
  }
}

export const templateDecider: Decider<TemplateCommand, TemplateEvent, TemplateState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};
