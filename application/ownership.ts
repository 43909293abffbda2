import { forbidden, notFound } from '../domain/shared/errors';
import type { ReadCollection } from './ports/read-store';

/**
 * Ids are global, so a caller can name another organization's resource. Ownership never changes,
 * which makes the read model a safe place to tell "someone else's" (403) from "nobody's" (404).
 */
export async function ownedDocument<T extends { organizationId: string }>(
  collection: ReadCollection<T>,
  id: string,
  organizationId: string,
  messages: { notFound: string; forbidden: string },
): Promise<T> {
  const doc = await collection.get(id);
  if (!doc) throw notFound(messages.notFound);
  if (doc.organizationId !== organizationId) throw forbidden(messages.forbidden);
  return doc;
}

/** As ownedDocument, but a missing document is left for the decider to judge. */
export async function assertNotForeign<T extends { organizationId: string }>(
  collection: ReadCollection<T>,
  id: string,
  organizationId: string,
  message: string,
): Promise<void> {
  const doc = await collection.get(id);
  if (doc && doc.organizationId !== organizationId) throw forbidden(message);
}
