import { useEffect, useState } from 'preact/hooks';
import { errorText } from './errors';

/** Re-renders every `ms` (countdowns). */
export function useTick(ms = 1000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(id);
  }, [ms]);
  return now;
}

export interface Loaded<T> {
  readonly data: T | null;
  readonly error: string | null;
  reload(): void;
}

/** Loads once per key; errors become a message instead of a blank page. */
export function useLoad<T>(load: () => Promise<T>, key: unknown[]): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let alive = true;
    setError(null);
    load().then((d) => alive && setData(d), (e: unknown) => alive && setError(errorText(e)));
    return () => {
      alive = false;
    };
  }, [...key, round]);
  return { data, error, reload: () => setRound((r) => r + 1) };
}
