import type { OrganizationType } from '../domain/organizations/organization';

/** Who is asking: established by authentication, carried into every command's metadata. */
export type RequestContext = {
  organizationId: string;
  organizationType: OrganizationType;
  actor: string;
  requestId: string;
  /** null: the token carries no scope claim and may do everything in its organization. */
  scopes: ReadonlySet<string> | null;
  /** When the token expires (ms since the epoch; null: never): a connection opened with it ends then. */
  tokenExpiresAt?: number | null;
  /**
   * What names the request across its runs when it carries an `Idempotency-Key` (a run cut short by a
   * crash is run again by the retry): the ids it generates are derived from it (originId), so a second
   * run reaches what the first made instead of making it twice.
   */
  origin?: string;
};

/** What a service needs from the system around it: time, ids, and waiting for read models. */
export type ServiceEnvironment = {
  now: () => Date;
  newId: () => string;
  /** Resolves once the read models include everything up to `position` (bounded wait). */
  readYourWrites: (position: number) => Promise<void>;
};
