/**
 * The port outbound webhooks are sent through: POST a body with headers, answer the status, or the
 * network error or timeout that kept one from arriving. An abort from the caller ends the request.
 */
export type PostOutcome = { statusCode: number | null; error: string | null; durationMs: number };
export type WebhookPoster = (
  url: string,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
) => Promise<PostOutcome>;
