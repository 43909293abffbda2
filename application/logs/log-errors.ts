import { DomainError } from '../../domain/shared/errors';

/** The spec's validation envelope (`Validation failed` + `errors`) from the application layer. */
export const validationFailedError = (errors: string[]) => new DomainError('invalid', 'Validation failed', { errors });
