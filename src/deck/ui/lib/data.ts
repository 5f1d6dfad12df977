/** Loading data for a panel: re-read when its inputs change or when the live feed says so. */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.js';

/** A panel's data. */
export interface Loaded<T> {
  data: T | null;
  error: ApiError | null;
  loading: boolean;
  reload: () => void;
}

/**
 * Runs `load` now, again whenever `key` changes, and (at most once a second) whenever `live`
 * moves; a read that is overtaken by a newer one is dropped.
 */
export function useData<T>(load: () => Promise<T>, key: string, live?: number): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(true);
  const generation = useRef(0);
  const lastLive = useRef(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  const reload = useCallback(() => {
    const mine = ++generation.current;
    setLoading(true);
    loadRef.current().then(
      (value) => {
        if (mine !== generation.current) return;
        setData(value);
        setError(null);
        setLoading(false);
      },
      (e: unknown) => {
        if (mine !== generation.current) return;
        setError(e instanceof ApiError ? e : new ApiError(0, 'NETWORK', String(e)));
        setLoading(false);
      },
    );
  }, []);

  useEffect(() => {
    setData(null);
    reload();
  }, [key, reload]);

  useEffect(() => {
    if (live === undefined || live === 0) return;
    const wait = Math.max(0, lastLive.current + 1000 - Date.now());
    const timer = setTimeout(() => {
      lastLive.current = Date.now();
      reload();
    }, wait);
    return () => clearTimeout(timer);
  }, [live, reload]);

  return { data, error, loading, reload };
}
