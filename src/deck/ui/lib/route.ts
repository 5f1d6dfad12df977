/**
 * The Deck's routes live in the URL's hash (`#/jobs/dlq?q={…}`), so every tab, filter and job
 * has a link that works under any mount prefix and survives a reload.
 */
import { useEffect, useState } from 'preact/hooks';

/** A parsed location. */
export interface Route {
  /** Path parts: `['jobs', 'dlq']`. */
  parts: string[];
  params: URLSearchParams;
}

function current(): Route {
  const hash = location.hash.replace(/^#/, '') || '/';
  const [path = '/', search = ''] = hash.split('?', 2);
  return {
    parts: path.split('/').filter(Boolean).map(decodeURIComponent),
    params: new URLSearchParams(search),
  };
}

/** The current route, re-rendered on every change. */
export function useRoute(): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const onChange = () => setRoute(current());
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

/** A link target: `href('jobs', 'dlq', { q: {...} })`. */
export function href(...parts: (string | Record<string, unknown>)[]): string {
  const path = parts.filter((p): p is string => typeof p === 'string');
  const params = parts.find((p): p is Record<string, unknown> => typeof p !== 'string');
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params ?? {})) {
    if (v === undefined) continue;
    search.set(k, typeof v === 'string' ? v : JSON.stringify(v));
  }
  const query = search.toString();
  return `#/${path.map(encodeURIComponent).join('/')}${query ? `?${query}` : ''}`;
}

/** Goes to a route. */
export function navigate(target: string): void {
  location.hash = target.replace(/^#/, '');
}
