/**
 * How every view of the event history shows an event, secrets masked: defined in the domain
 * (`domain/shared/event-view.ts`), since the audit's event index keeps events in that view too.
 */
export { eventView, withSecretsMasked, type AuditEvent } from '../../domain/shared/event-view';
