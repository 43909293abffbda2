/** Disposition catalog use cases: commands go to the organization's catalog aggregate, queries to read models. */
import {
  catalogDecider,
  catalogStreamId,
  DISPOSITION_NOT_FOUND,
  GROUP_NOT_FOUND,
  type CatalogCommand,
} from '../../domain/dispositions/catalog';
import type { DispositionGroupDocument } from '../../projections/dispositions/disposition-groups';
import type { DispositionDocument } from '../../projections/dispositions/dispositions';
import type { CommandHandler } from '../command-handler';
import { assertNotForeign, ownedDocument } from '../ownership';
import { findPage, type Pagination } from '../pagination';
import type { Query, ReadCollection } from '../ports/read-store';
import type { RequestContext, ServiceEnvironment } from '../request-context';
import { creationId } from '../derived-id';

export const DISPOSITION_FORBIDDEN = 'Access denied - Disposition belongs to another organization';
export const GROUP_FORBIDDEN = 'Access denied - Disposition group belongs to another organization';

export type DispositionView = Omit<DispositionDocument, 'organizationId'>;
export type GroupView = Omit<DispositionGroupDocument, 'organizationId' | 'dispositionIds'> & {
  dispositions: (string | DispositionView)[];
};
export type ListQuery = { page: number; limit: number; search?: string };

type Distribute<T> = T extends unknown ? Omit<T, 'at'> : never;
type CommandInput = Distribute<CatalogCommand>;

export class DispositionService {
  constructor(
    private readonly commands: CommandHandler,
    private readonly dispositions: ReadCollection<DispositionDocument>,
    private readonly groups: ReadCollection<DispositionGroupDocument>,
    private readonly env: ServiceEnvironment,
  ) {}

  async create(
    ctx: RequestContext,
    input: { name: string; description?: string; priority?: number },
  ): Promise<DispositionView> {
    const { id: dispositionId, made } = await creationId(
      ctx,
      () => this.env.newId(),
      'disposition',
      async (id) => (await this.catalog(ctx)).dispositions.has(id),
    );
    if (made) return this.get(ctx, dispositionId);
    await this.execute(ctx, {
      type: 'CreateDisposition',
      dispositionId,
      name: input.name.trim(),
      description: input.description ?? '',
      priority: input.priority ?? 500,
    });
    return this.get(ctx, dispositionId);
  }

  async list(ctx: RequestContext, query: ListQuery): Promise<{ data: DispositionView[]; pagination: Pagination }> {
    const { docs, pagination } = await findPage(this.dispositions, byOrganizationAndName(ctx, query.search), query);
    return { data: docs.map(dispositionView), pagination };
  }

  async get(ctx: RequestContext, id: string): Promise<DispositionView> {
    return dispositionView(
      await ownedDocument(this.dispositions, id, ctx.organizationId, {
        notFound: DISPOSITION_NOT_FOUND,
        forbidden: DISPOSITION_FORBIDDEN,
      }),
    );
  }

  async update(
    ctx: RequestContext,
    id: string,
    changes: { name?: string; description?: string; priority?: number },
  ): Promise<DispositionView> {
    await assertNotForeign(this.dispositions, id, ctx.organizationId, DISPOSITION_FORBIDDEN);
    const { name, description, priority } = changes;
    await this.execute(ctx, {
      type: 'UpdateDisposition',
      dispositionId: id,
      changes: {
        ...(name !== undefined && { name: name.trim() }),
        ...(description !== undefined && { description }),
        ...(priority !== undefined && { priority }),
      },
    });
    return this.get(ctx, id);
  }

  async delete(ctx: RequestContext, id: string): Promise<void> {
    await assertNotForeign(this.dispositions, id, ctx.organizationId, DISPOSITION_FORBIDDEN);
    await this.execute(ctx, { type: 'DeleteDisposition', dispositionId: id });
  }

  async createGroup(
    ctx: RequestContext,
    input: { name: string; description?: string; dispositions?: string[] },
  ): Promise<GroupView> {
    const { id: groupId, made } = await creationId(
      ctx,
      () => this.env.newId(),
      'group',
      async (id) => (await this.catalog(ctx)).groups.has(id),
    );
    if (made) return this.getGroup(ctx, groupId, false);
    await this.execute(ctx, {
      type: 'CreateDispositionGroup',
      groupId,
      name: input.name.trim(),
      description: input.description ?? '',
      dispositionIds: input.dispositions ?? [],
    });
    return this.getGroup(ctx, groupId, false);
  }

  async listGroups(
    ctx: RequestContext,
    query: ListQuery & { expand: boolean },
  ): Promise<{ data: GroupView[]; pagination: Pagination }> {
    const { docs, pagination } = await findPage(this.groups, byOrganizationAndName(ctx, query.search), query);
    return { data: await Promise.all(docs.map((g) => this.groupView(g, query.expand))), pagination };
  }

  async getGroup(ctx: RequestContext, id: string, expand: boolean): Promise<GroupView> {
    return this.groupView(await this.ownedGroup(ctx, id), expand);
  }

  async updateGroup(
    ctx: RequestContext,
    id: string,
    changes: { name?: string; description?: string; dispositions?: string[] },
  ): Promise<GroupView> {
    await assertNotForeign(this.groups, id, ctx.organizationId, GROUP_FORBIDDEN);
    const { name, description, dispositions } = changes;
    await this.execute(ctx, {
      type: 'UpdateDispositionGroup',
      groupId: id,
      changes: {
        ...(name !== undefined && { name: name.trim() }),
        ...(description !== undefined && { description }),
        ...(dispositions !== undefined && { dispositionIds: dispositions }),
      },
    });
    return this.getGroup(ctx, id, false);
  }

  async deleteGroup(ctx: RequestContext, id: string): Promise<void> {
    await assertNotForeign(this.groups, id, ctx.organizationId, GROUP_FORBIDDEN);
    await this.execute(ctx, { type: 'DeleteDispositionGroup', groupId: id });
  }

  async addToGroup(ctx: RequestContext, id: string, dispositionIds: string[]): Promise<GroupView> {
    await assertNotForeign(this.groups, id, ctx.organizationId, GROUP_FORBIDDEN);
    await this.execute(ctx, { type: 'AddDispositionsToGroup', groupId: id, dispositionIds });
    return this.getGroup(ctx, id, false);
  }

  async removeFromGroup(ctx: RequestContext, id: string, dispositionIds: string[]): Promise<GroupView> {
    await assertNotForeign(this.groups, id, ctx.organizationId, GROUP_FORBIDDEN);
    await this.execute(ctx, { type: 'RemoveDispositionsFromGroup', groupId: id, dispositionIds });
    return this.getGroup(ctx, id, false);
  }

  private ownedGroup(ctx: RequestContext, id: string): Promise<DispositionGroupDocument> {
    return ownedDocument(this.groups, id, ctx.organizationId, {
      notFound: GROUP_NOT_FOUND,
      forbidden: GROUP_FORBIDDEN,
    });
  }

  private async groupView(group: DispositionGroupDocument, expand: boolean): Promise<GroupView> {
    const { organizationId: _org, dispositionIds, ...rest } = group;
    if (!expand) return { ...rest, dispositions: dispositionIds };
    const stored = await this.dispositions.getStored(dispositionIds);
    return {
      ...rest,
      dispositions: dispositionIds.flatMap((id) => {
        const doc = stored.get(id)?.doc;
        return doc ? [dispositionView(doc)] : [];
      }),
    };
  }

  private async catalog(ctx: RequestContext) {
    return (await this.commands.load(catalogDecider, catalogStreamId(ctx.organizationId))).state;
  }

  private async execute(ctx: RequestContext, command: CommandInput): Promise<void> {
    const full = { ...command, at: this.env.now().toISOString() } as CatalogCommand;
    const result = await this.commands.handle(catalogDecider, catalogStreamId(ctx.organizationId), full, {
      organizationId: ctx.organizationId,
      actor: ctx.actor,
      requestId: ctx.requestId,
    });
    await this.env.readYourWrites(result.position);
  }
}

const dispositionView = ({ organizationId: _org, ...view }: DispositionDocument): DispositionView => view;

const byOrganizationAndName = (ctx: RequestContext, search: string | undefined): Query => ({
  where: { organizationId: ctx.organizationId },
  ...(search && { search: { field: 'name', text: search } }),
});
