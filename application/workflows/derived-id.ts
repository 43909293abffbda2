import { derivedId } from '../derived-id';

/** The call or chat id of a run's step visit: a repeated step finds the contact it already made. */
export const contactIdOf = (runId: string, visit: number) => derivedId('workflow-contact', runId, String(visit));
