/** A gRPC failure as a KurrentDB server sends it, converted by the client as it converts every call's error. */
import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { convertToCommandError } from '@kurrent/kurrentdb-client';

export { status };

export function kurrentError(code: status, exception?: Record<string, string>): Error {
  const metadata = new Metadata();
  for (const [key, value] of Object.entries(exception ?? {})) metadata.set(key, value);
  return convertToCommandError(
    Object.assign(new Error(`${code}`), { code, details: 'from the server', metadata }) as ServiceError,
  ) as Error;
}
