/** AI agent use cases. */
import {
  AGENT_FORBIDDEN,
  AGENT_NOT_FOUND,
  agentDecider,
  agentStreamId,
  DEFAULT_VOICE_ID,
  type AgentDetails,
} from '../../domain/agents/agent';
import type { LanguageCode } from '../../domain/shared/languages';
import type { AgentDocument } from '../../projections/agents/agents';
import type { CommandHandler } from '../command-handler';
import { ownedDocument } from '../ownership';
import { findPage, type Pagination } from '../pagination';
import type { Query, ReadCollection } from '../ports/read-store';
import type { RequestContext, ServiceEnvironment } from '../request-context';
import { creationId } from '../derived-id';

export type AgentView = Omit<AgentDocument, 'organizationId'>;
export type AgentInput = {
  name: string;
  description?: string;
  language?: LanguageCode;
  voiceId?: string;
  greeting?: string;
  lines?: string[];
};

export class AgentService {
  constructor(
    private readonly commands: CommandHandler,
    private readonly agents: ReadCollection<AgentDocument>,
    private readonly env: ServiceEnvironment,
  ) {}

  async create(ctx: RequestContext, input: AgentInput): Promise<AgentView> {
    const { id: agentId, made } = await creationId(
      ctx,
      () => this.env.newId(),
      'agent',
      (id) => this.commands.exists(agentDecider, agentStreamId(id)),
    );
    if (made) return this.get(ctx, agentId);
    const details: AgentDetails = {
      name: input.name.trim(),
      description: input.description ?? '',
      language: input.language ?? 'en',
      voiceId: input.voiceId ?? DEFAULT_VOICE_ID,
      greeting: input.greeting ?? null,
      lines: input.lines ?? [],
    };
    const command = {
      type: 'CreateAgent' as const,
      agentId,
      organizationId: ctx.organizationId,
      organizationType: ctx.organizationType,
      at: this.env.now().toISOString(),
      ...details,
    };
    const result = await this.commands.handle(agentDecider, agentStreamId(agentId), command, {
      organizationId: ctx.organizationId,
      actor: ctx.actor,
      requestId: ctx.requestId,
    });
    await this.env.readYourWrites(result.position);
    return this.get(ctx, agentId);
  }

  async list(
    ctx: RequestContext,
    query: { page: number; limit: number; search?: string },
  ): Promise<{ data: AgentView[]; pagination: Pagination }> {
    const filter: Query = {
      where: { organizationId: ctx.organizationId },
      ...(query.search && { search: { field: 'name', text: query.search } }),
    };
    const { docs, pagination } = await findPage(this.agents, filter, query);
    return { data: docs.map(view), pagination };
  }

  async get(ctx: RequestContext, id: string): Promise<AgentView> {
    return view(
      await ownedDocument(this.agents, id, ctx.organizationId, {
        notFound: AGENT_NOT_FOUND,
        forbidden: AGENT_FORBIDDEN,
      }),
    );
  }
}

const view = ({ organizationId: _org, ...rest }: AgentDocument): AgentView => rest;
