/** Organization administration: registration, credits, and the record of issued tokens. */
import {
  organizationDecider,
  organizationStreamId,
  ORGANIZATION_NOT_FOUND,
  type OrganizationType,
} from '../../domain/organizations/organization';
import { notFound } from '../../domain/shared/errors';
import type { CallingHours } from '../../domain/campaigns/schedule';
import type { OrganizationDocument } from '../../projections/organizations/organizations';
import type { CommandHandler, CommandContext } from '../command-handler';
import type { ReadCollection } from '../ports/read-store';
import type { ServiceEnvironment } from '../request-context';

export const DEFAULT_CREDITS = 1_000_000;
export const DEFAULT_CONCURRENCY_LIMIT = 5;

export type TokenSigner = (claims: {
  organizationId: string;
  subject: string;
  scopes: string[] | null;
  tokenId: string;
  expiresInSeconds: number;
}) => Promise<string>;

/**
 * Where the service looks an organization up: the organizations read model in the service; the
 * organization's own stream where no projection runs (the admin command line).
 */
export type OrganizationLookup = Pick<ReadCollection<OrganizationDocument>, 'get'>;

export class OrganizationService {
  constructor(
    private readonly commands: CommandHandler,
    private readonly organizations: OrganizationLookup,
    private readonly signToken: TokenSigner,
    private readonly env: ServiceEnvironment,
  ) {}

  async register(
    ctx: CommandContext,
    input: { name: string; type: OrganizationType; credits?: number; concurrencyLimit?: number },
  ): Promise<OrganizationDocument> {
    const organizationId = this.env.newId();
    const result = await this.commands.handle(
      organizationDecider,
      organizationStreamId(organizationId),
      {
        type: 'RegisterOrganization',
        organizationId,
        name: input.name.trim(),
        organizationType: input.type,
        credits: input.credits ?? DEFAULT_CREDITS,
        concurrencyLimit: input.concurrencyLimit ?? DEFAULT_CONCURRENCY_LIMIT,
        at: this.env.now().toISOString(),
      },
      // The organization's history (its audit trail) starts with its registration.
      { ...ctx, organizationId },
    );
    await this.env.readYourWrites(result.position);
    return this.get(organizationId);
  }

  async get(id: string): Promise<OrganizationDocument> {
    const doc = await this.organizations.get(id);
    if (!doc) throw notFound(ORGANIZATION_NOT_FOUND);
    return doc;
  }

  async adjustCredits(ctx: CommandContext, id: string, amount: number): Promise<number> {
    const result = await this.commands.handle(
      organizationDecider,
      organizationStreamId(id),
      { type: 'AdjustCredits', amount, at: this.env.now().toISOString() },
      { ...ctx, organizationId: id },
    );
    await this.env.readYourWrites(result.position);
    return (await this.get(id)).credits;
  }

  /** Sets the hours the organization's customers may be called in (docs/campaign-schedules.md). */
  async setCallingHours(ctx: CommandContext, id: string, callingHours: CallingHours): Promise<OrganizationDocument> {
    const result = await this.commands.handle(
      organizationDecider,
      organizationStreamId(id),
      { type: 'SetCallingHours', callingHours, at: this.env.now().toISOString() },
      { ...ctx, organizationId: id },
    );
    await this.env.readYourWrites(result.position);
    return this.get(id);
  }

  async issueToken(
    ctx: CommandContext,
    id: string,
    input: { scopes?: string[]; expiresInSeconds: number; subject?: string },
  ): Promise<{ token: string; expiresAt: string }> {
    await this.get(id);
    const tokenId = this.env.newId();
    const subject = input.subject ?? `token:${tokenId}`;
    const expiresAt = new Date(this.env.now().getTime() + input.expiresInSeconds * 1000).toISOString();
    const scopes = input.scopes ?? null;
    await this.commands.handle(
      organizationDecider,
      organizationStreamId(id),
      { type: 'RecordTokenIssued', tokenId, subject, scopes, expiresAt, at: this.env.now().toISOString() },
      { ...ctx, organizationId: id },
    );
    const token = await this.signToken({
      organizationId: id,
      subject,
      scopes,
      tokenId,
      expiresInSeconds: input.expiresInSeconds,
    });
    return { token, expiresAt };
  }
}
