/** Loads what a page shows, again when its inputs change or when asked; keeps the API's error to show. */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError } from '../client/api';

export type Loaded<T> = {
  data: T | undefined;
  error: ApiError | Error | undefined;
  loading: boolean;
  reload: () => void;
};

export function useLoad<T>(load: () => Promise<T>, inputs: readonly unknown[]): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | Error | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setLoading(true);
    load().then(
      (value) => {
        if (!current) return;
        setData(value);
        setError(undefined);
        setLoading(false);
      },
      (e: unknown) => {
        if (!current) return;
        setError(e instanceof Error ? e : new Error(String(e)));
        setLoading(false);
      },
    );
    return () => {
      current = false;
    };
  }, [...inputs, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { data, error, loading, reload };
}

/** Runs an action (a form's submit), keeping its error to show beside the form and whether it runs. */
export function useAction<A extends unknown[], R>(action: (...args: A) => Promise<R>) {
  const [error, setError] = useState<ApiError | Error | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const run = useCallback(
    async (...args: A): Promise<R | undefined> => {
      setBusy(true);
      setError(undefined);
      try {
        return await action(...args);
      } catch (e) {
        setError(e instanceof Error ? e : new Error(String(e)));
        return undefined;
      } finally {
        setBusy(false);
      }
    },
    [action],
  );
  return { run, error, busy, clearError: () => setError(undefined) };
}
