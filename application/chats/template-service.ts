/** Chat template use cases: create, list, get (decisions.md section 2, "ours"). */
import type { LanguageCode } from '../../domain/shared/languages';
import {
  TEMPLATE_FORBIDDEN,
  TEMPLATE_NOT_FOUND,
  chatTemplateStreamId,
  templateDecider,
} from '../../domain/chats/template';
import type { ChatTemplateDocument } from '../../projections/chats/chat-templates';
import type { CommandHandler } from '../command-handler';
import { ownedDocument } from '../ownership';
import { findPage, type Pagination } from '../pagination';
import type { Query, ReadCollection } from '../ports/read-store';
import type { RequestContext, ServiceEnvironment } from '../request-context';
import { creationId } from '../derived-id';

export type TemplateView = Omit<ChatTemplateDocument, 'organizationId'>;
export type TemplateInput = { name: string; language?: LanguageCode; body: string };

export class TemplateService {
  constructor(
    private readonly commands: CommandHandler,
    private readonly templates: ReadCollection<ChatTemplateDocument>,
    private readonly env: ServiceEnvironment,
  ) {}

  async create(ctx: RequestContext, input: TemplateInput): Promise<TemplateView> {
    const { id: templateId, made } = await creationId(
      ctx,
      () => this.env.newId(),
      'template',
      (id) => this.commands.exists(templateDecider, chatTemplateStreamId(id)),
    );
    if (made) return this.get(ctx, templateId);
    const command = {
      type: 'CreateChatTemplate' as const,
      templateId,
      organizationId: ctx.organizationId,
      organizationType: ctx.organizationType,
      at: this.env.now().toISOString(),
      name: input.name.trim(),
      language: input.language ?? 'en',
      body: input.body,
    };
    const result = await this.commands.handle(templateDecider, chatTemplateStreamId(templateId), command, {
      organizationId: ctx.organizationId,
      actor: ctx.actor,
      requestId: ctx.requestId,
    });
    await this.env.readYourWrites(result.position);
    return this.get(ctx, templateId);
  }

  async list(
    ctx: RequestContext,
    query: { page: number; limit: number; search?: string },
  ): Promise<{ data: TemplateView[]; pagination: Pagination }> {
    const filter: Query = {
      where: { organizationId: ctx.organizationId },
      ...(query.search && { search: { field: 'name', text: query.search } }),
    };
    const { docs, pagination } = await findPage(this.templates, filter, query);
    return { data: docs.map(view), pagination };
  }

  async get(ctx: RequestContext, id: string): Promise<TemplateView> {
    return view(
      await ownedDocument(this.templates, id, ctx.organizationId, {
        notFound: TEMPLATE_NOT_FOUND,
        forbidden: TEMPLATE_FORBIDDEN,
      }),
    );
  }

  /** The organization's template, or null when it is unknown or another organization's. */
  async ownedBy(organizationId: string, id: string): Promise<ChatTemplateDocument | null> {
    const doc = await this.templates.get(id);
    return doc && doc.organizationId === organizationId ? doc : null;
  }
}

const view = ({ organizationId: _org, ...rest }: ChatTemplateDocument): TemplateView => rest;
