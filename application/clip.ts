/** Caller-given text echoed in an error (a property name, an id) is cut: a 1 MB value must not come back as a 1 MB error. */
export const MAX_ECHOED_CHARS = 40;

export const clip = (text: string, max = MAX_ECHOED_CHARS): string =>
  text.length > max ? `${text.slice(0, max)}…` : text;
