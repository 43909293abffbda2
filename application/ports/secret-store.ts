/**
 * The secret store port: secrets kept outside the event log (an organization's provider credentials),
 * each under a reference events may carry. Erasing a secret is deleting its reference here; the
 * events that named it stay as they are and give nothing away.
 */
export interface SecretStore {
  /** Keeps `value` under `ref` (a fresh reference: a secret is never changed in place). */
  put(ref: string, value: Record<string, string>): Promise<void>;
  /** The secret under `ref`; null when there is none (never kept, or deleted). */
  get(ref: string): Promise<Record<string, string> | null>;
  /** Erases the secret under `ref`; deleting one that is not there is no error. */
  delete(ref: string): Promise<void>;
}
