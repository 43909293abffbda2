/**
 * ErrorNote, with the reasons of a validation failure: the API sends them as `errors` beside
 * `message` (`{message: "Validation failed", errors: ["name is required"]}`), where ErrorNote looks
 * for `details.errors`, so they are moved there before it shows them.
 */
import { ApiError } from '../client/api';
import { ErrorNote } from './ui';

export function withReasons(error: Error | undefined): Error | undefined {
  if (!(error instanceof ApiError) || error.details !== undefined) return error;
  const errors = (error.body as { errors?: unknown } | undefined)?.errors;
  if (!Array.isArray(errors) || errors.length === 0) return error;
  const reasons = errors.map((e) => (typeof e === 'object' && e !== null && 'error' in e ? String(e.error) : e));
  return new ApiError(error.status, error.message, { errors: reasons }, error.body);
}

export function Problem(props: { error: Error | undefined }) {
  return <ErrorNote error={withReasons(props.error)} />;
}
