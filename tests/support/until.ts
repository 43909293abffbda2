/** Polls `read` every 50 ms until `done` holds of its value or `ms` pass; answers the last value read. */
export async function until<T>(read: () => Promise<T> | T, done: (value: T) => boolean, ms = 20_000): Promise<T> {
  let value = await read();
  for (const deadline = Date.now() + ms; !done(value) && Date.now() < deadline; value = await read())
    await new Promise((resolve) => setTimeout(resolve, 50));
  return value;
}
