/** An error a writer thread reported, with SQLite's code when it had one (`SQLITE_BUSY`: the file was busy). */
export function storeError(message: string, code: string | undefined): Error {
  const error = new Error(message) as Error & { code?: string };
  if (code !== undefined) error.code = code;
  return error;
}
