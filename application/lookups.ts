/**
 * What one feature reads of another's read models, in one application service every module is given
 * (instead of closures lent from feature to feature): an organization's type, a customer's record, an
 * agent, the dispositions a call may end with, and the one check of the ids a command names (a
 * campaign's agent, its disposition group): each must name a resource of the caller's organization.
 * Ids are global, so a caller can name another organization's resource; such an id is answered as an
 * unknown one (400 naming the field), so that nobody learns which ids exist elsewhere. Ownership never
 * changes, which makes the read models a safe place to look.
 */
import type { AgentDocument } from '../projections/agents/agents';
import type { CustomerDocument } from '../projections/customers/customers';
import type { DispositionGroupDocument } from '../projections/dispositions/disposition-groups';
import type { DispositionDocument } from '../projections/dispositions/dispositions';
import type { OrganizationDocument } from '../projections/organizations/organizations';
import { customerDocumentId } from '../domain/customers/keys';
import type { OrganizationType } from '../domain/organizations/organization';
import type { ReadCollection } from './ports/read-store';

type Owned = { organizationId: string };

export type ReferenceKind = 'agent' | 'dispositionGroup';

/** What each kind of reference is called in a refusal. */
const NOUNS: Record<ReferenceKind, string> = { agent: 'agent', dispositionGroup: 'disposition group' };

export type Reference = { field: string; kind: ReferenceKind; id: string | null | undefined };

export type LookupCollections = {
  organizations: ReadCollection<OrganizationDocument>;
  agents: ReadCollection<AgentDocument>;
  customers: ReadCollection<CustomerDocument>;
  dispositions: ReadCollection<DispositionDocument>;
  groups: ReadCollection<DispositionGroupDocument>;
};

export class Lookups {
  /** An organization's type never changes and organizations are never removed, so it is remembered. */
  private readonly types = new Map<string, OrganizationType>();

  constructor(private readonly collections: LookupCollections) {}

  async organizationType(organizationId: string): Promise<OrganizationType | null> {
    const known = this.types.get(organizationId);
    if (known) return known;
    const type = (await this.collections.organizations.get(organizationId))?.type ?? null;
    if (type && this.types.size < 100_000) this.types.set(organizationId, type);
    return type;
  }

  /** A customer's record in a campaign (customer keys are unique within a campaign only). */
  async customer(
    _organizationId: string,
    campaignId: string,
    customerKey: string,
  ): Promise<Record<string, unknown> | null> {
    return (await this.collections.customers.get(customerDocumentId(campaignId, customerKey)))?.data ?? null;
  }

  /**
   * The organization's customers whose record has this phone number, in any campaign, the latest
   * added first (an inbound caller is matched by it: docs/inbound.md). The number is matched as the
   * records may write it: with or without its leading `+`.
   */
  async customersByPhone(organizationId: string, phone: string, limit = 20): Promise<CustomerDocument[]> {
    const digits = phone.replace(/^\+/, '');
    return this.collections.customers.find({
      where: { organizationId, phone_number: { in: [digits, `+${digits}`] } },
      sort: { field: 'addedSeq', order: 'desc' },
      limit,
    });
  }

  /** The organization's agent, or null (also for another organization's). */
  async agent(organizationId: string, agentId: string): Promise<AgentDocument | null> {
    const agent = await this.collections.agents.get(agentId);
    return agent && agent.organizationId === organizationId ? agent : null;
  }

  async agentExists(organizationId: string, agentId: string): Promise<boolean> {
    return (await this.agent(organizationId, agentId)) !== null;
  }

  /**
   * A disposition id stands for itself; a group id for the group's members (the outcomes a call may
   * take); [] when neither is the organization's.
   */
  async dispositionsOf(organizationId: string, id: string): Promise<{ id: string; name: string }[]> {
    const single = await this.collections.dispositions.get(id);
    if (single) return single.organizationId === organizationId ? [{ id: single.id, name: single.name }] : [];
    const group = await this.collections.groups.get(id);
    if (!group || group.organizationId !== organizationId) return [];
    const members = await this.collections.dispositions.getStored(group.dispositionIds);
    return group.dispositionIds.flatMap((m) => {
      const doc = members.get(m)?.doc;
      return doc ? [{ id: doc.id, name: doc.name }] : [];
    });
  }

  /** Whether `id` names a resource of `kind` that belongs to `organizationId`. */
  async owns(organizationId: string, kind: ReferenceKind, id: string): Promise<boolean> {
    const collection: ReadCollection<Owned> = kind === 'agent' ? this.collections.agents : this.collections.groups;
    return (await collection.get(id))?.organizationId === organizationId;
  }

  /** The refusals of the references given (a null or absent id names nothing and is not checked). */
  async problems(organizationId: string, references: readonly Reference[]): Promise<string[]> {
    const checked = await Promise.all(
      references.map(async (r) =>
        r.id == null || (await this.owns(organizationId, r.kind, r.id))
          ? null
          : `${r.field} names no ${NOUNS[r.kind]} of this organization`,
      ),
    );
    return checked.filter((problem): problem is string => problem !== null);
  }
}
