/**
 * Why a command was refused. The API maps each kind to the spec's status code; the message is the
 * text the client sees, so deciders write it exactly as the contract words it.
 */
export type DomainErrorKind = 'invalid' | 'not_found' | 'forbidden' | 'conflict';

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    /** Extra fields for the error body, such as `invalidIds`. */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const invalid = (message: string, details?: Record<string, unknown>) =>
  new DomainError('invalid', message, details);
export const notFound = (message: string) => new DomainError('not_found', message);
export const forbidden = (message: string) => new DomainError('forbidden', message);
export const conflict = (message: string) => new DomainError('conflict', message);
