/**
 * The one check of the ids a command names (a campaign's agent, its disposition group, a call's
 * disposition): each must name a resource of the caller's organization. Ids are global, so a caller
 * can name another organization's resource; such an id is answered as an unknown one (400 naming the
 * field), so that nobody learns which ids exist elsewhere. Ownership never changes, which makes the
 * read models a safe place to look.
 */
import { invalid } from '../domain/shared/errors';
import type { ReadCollection } from './ports/read-store';

type Owned = { organizationId: string };

export type ReferenceKind = 'agent' | 'disposition' | 'dispositionGroup' | 'dispositionOrGroup';

/** What each kind of reference is called in a refusal. */
const NOUNS: Record<ReferenceKind, string> = {
  agent: 'agent',
  disposition: 'disposition',
  dispositionGroup: 'disposition group',
  dispositionOrGroup: 'disposition or disposition group',
};

export type Reference = { field: string; kind: ReferenceKind; id: string | null | undefined };

export class References {
  constructor(
    private readonly collections: {
      agents: ReadCollection<Owned>;
      dispositions: ReadCollection<Owned>;
      groups: ReadCollection<Owned>;
    },
  ) {}

  /** Whether `id` names a resource of `kind` that belongs to `organizationId`. */
  async owns(organizationId: string, kind: ReferenceKind, id: string): Promise<boolean> {
    const mine = async (collection: ReadCollection<Owned>) =>
      (await collection.get(id))?.organizationId === organizationId;
    switch (kind) {
      case 'agent':
        return mine(this.collections.agents);
      case 'disposition':
        return mine(this.collections.dispositions);
      case 'dispositionGroup':
        return mine(this.collections.groups);
      case 'dispositionOrGroup':
        return (await mine(this.collections.dispositions)) || mine(this.collections.groups);
    }
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

  /** 400 `Validation failed` listing every reference that is not the organization's. */
  async assertOwned(organizationId: string, references: readonly Reference[]): Promise<void> {
    const problems = await this.problems(organizationId, references);
    if (problems.length > 0) throw invalid('Validation failed', { errors: problems });
  }
}
