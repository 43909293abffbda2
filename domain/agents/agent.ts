/**
 * An AI agent: the voice, language and script that place an organization's calls and hold its chats.
 * Its greeting and lines may name fields of the customer record (`{{first_name}}`); naming a field the
 * organization's records do not have is refused up front, rather than read aloud as a blank later.
 */
import { unknownPlaceholders } from '../shared/placeholders';
import type { LanguageCode } from '../shared/languages';
import { assertNever, type Decider } from '../shared/decider';
import { invalid } from '../shared/errors';
import type { OrganizationType } from '../organizations/organization';
import { recordFields } from '../customers/record';

export const agentStreamId = (agentId: string) => `agent-${agentId}`;

export const AGENT_NOT_FOUND = 'Agent not found';
export const AGENT_FORBIDDEN = 'Access denied - Agent belongs to another organization';
export const VOICE_IDS = [
  'Ogbs15oBevLzXsUuTtA1',
  'Owbs15oBevLzXsUurdA_',
  'PAbs15oBevLzXsUu4dCi',
  'PQbt15oBevLzXsUuNtD3',
  'Pgbt15oBevLzXsUubdA6',
] as const;
export const DEFAULT_VOICE_ID = VOICE_IDS[0];

export type AgentDetails = {
  name: string;
  description: string;
  language: LanguageCode;
  voiceId: string;
  greeting: string | null;
  lines: string[];
};

export type AgentState =
  { status: 'none' } | ({ status: 'active'; agentId: string; organizationId: string } & AgentDetails);

export type AgentCommand = {
  type: 'CreateAgent';
  agentId: string;
  organizationId: string;
  organizationType: OrganizationType;
  at: string;
} & AgentDetails;

export type AgentEvent = {
  type: 'AgentCreated';
  data: { agentId: string; organizationId: string; at: string } & AgentDetails;
};

export const agentEventTypes = ['AgentCreated'] as const satisfies readonly AgentEvent['type'][];

/** Messages naming each template whose placeholders are not fields of the organization's records. */
export function placeholderErrors(
  organizationType: OrganizationType,
  greeting: string | null,
  lines: readonly string[],
): string[] {
  const fields = recordFields(organizationType);
  const templates: [string, string][] = [
    ...(greeting === null ? [] : [['greeting', greeting] as [string, string]]),
    ...lines.map((line, i) => [`lines[${i}]`, line] as [string, string]),
  ];
  return templates.flatMap(([where, template]) => {
    const unknown = unknownPlaceholders(template, fields);
    return unknown.length === 0
      ? []
      : [
          `${where} has unknown placeholders: ${unknown.map((name) => `{{${name}}}`).join(', ')} (customer record fields: ${fields.join(', ')})`,
        ];
  });
}

export function decide(command: AgentCommand, state: AgentState): AgentEvent[] {
  switch (command.type) {
    case 'CreateAgent': {
      if (state.status !== 'none') throw invalid('Agent already exists');
      const errors = placeholderErrors(command.organizationType, command.greeting, command.lines);
      if (errors.length > 0) throw invalid('Validation failed', { errors });
      const { type: _type, organizationType: _orgType, ...data } = command;
      return [{ type: 'AgentCreated', data }];
    }
    default:
      return assertNever(command.type);
  }
}

export function evolve(state: AgentState, event: AgentEvent): AgentState {
  switch (event.type) {
    case 'AgentCreated': {
      const { at: _at, ...agent } = event.data;
      return { status: 'active', ...agent };
    }
    default:
      return assertNever(event.type);
  }
}

export const agentDecider: Decider<AgentCommand, AgentEvent, AgentState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};
