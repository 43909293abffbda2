/** A provider that could not be asked for proof of control answers 503: nothing was changed, the client may try again. */
import { ProviderUnavailableError } from '../../application/providers/provider-control';
import { HttpError } from '../http/errors';

export async function providerUnavailableAs503<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof ProviderUnavailableError) throw new HttpError(503, error.message);
    throw error;
  }
}
