/** Loading data for a panel: re-read when its inputs change or when the live feed says so. */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, SIGNED_OUT } from './api.js';

/** A panel's data. */
export interface Loaded<T> {
  data: T | null;
  error: ApiError | null;
  loading: boolean;
  reload: () => void;
}

/**
 * Runs `load` now, again whenever `key` changes, and (at most once a second) whenever `live`
 * moves — after the read in flight, never overtaking it; a read whose key changed is dropped.
 * `load` is told whether it runs because the feed moved (pass that on to `get`). A 401 tells the
 * app that its session ended.
 */
export function useData<T>(
  load: (live: boolean) => Promise<T>,
  key: string,
  live?: number,
): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(true);
  const generation = useRef(0);
  const lastLive = useRef(0);
  /** A read is out; a live change meanwhile asks for one more read after it. */
  const reading = useRef(false);
  const again = useRef(false);
  const loadRef = useRef(load);
  loadRef.current = load;

  const read = useCallback((byFeed: boolean) => {
    const mine = ++generation.current;
    reading.current = true;
    setLoading(true);
    const settle = () => {
      reading.current = false;
      if (again.current) {
        again.current = false;
        read(true);
      }
    };
    loadRef.current(byFeed).then(
      (value) => {
        if (mine !== generation.current) return;
        setData(value);
        setError(null);
        setLoading(false);
        settle();
      },
      (e: unknown) => {
        if (mine !== generation.current) return;
        if (e instanceof ApiError && e.status === 401) dispatchEvent(new Event(SIGNED_OUT));
        setError(e instanceof ApiError ? e : new ApiError(0, 'NETWORK', String(e)));
        setLoading(false);
        settle();
      },
    );
  }, []);
  const reload = useCallback(() => read(false), [read]);

  useEffect(() => {
    setData(null);
    reload();
  }, [key, reload]);

  useEffect(() => {
    if (live === undefined || live === 0) return;
    const wait = Math.max(0, lastLive.current + 1000 - Date.now());
    const timer = setTimeout(() => {
      lastLive.current = Date.now();
      // Slow reads are not overtaken by newer ones (which would never show anything).
      if (reading.current) again.current = true;
      else read(true);
    }, wait);
    return () => clearTimeout(timer);
  }, [live, read]);

  return { data, error, loading, reload };
}
