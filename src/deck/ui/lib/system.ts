/**
 * The system's health (`api/system`: every worker, every queue's lag against its thresholds,
 * due work no live worker runs), re-read as the live feed moves; shared by the panels that show
 * it, so colours everywhere follow the configured thresholds.
 */
import type { SystemHealth } from '../../../observability/health/system.js';
import { get } from './api.js';
import { useData, type Loaded } from './data.js';
import { useFeed } from './feed.js';

/** The system health, live. */
export function useSystem(): Loaded<SystemHealth> {
  const feed = useFeed();
  return useData(
    (live) => get<SystemHealth>('system', undefined, live),
    'system',
    feed.status ? Date.parse(String(feed.status.at)) : 0,
  );
}

/** The tone of a health status for cards and cells. */
export function toneOf(
  status: 'ok' | 'degraded' | 'unhealthy' | undefined,
): 'warn' | 'bad' | undefined {
  return status === 'unhealthy' ? 'bad' : status === 'degraded' ? 'warn' : undefined;
}

/** What a stranded entry's reason says. */
export function strandedWhy(reason: 'no-worker-serves-queue' | 'no-worker-runs-type'): string {
  return reason === 'no-worker-serves-queue'
    ? 'no live worker serves this queue'
    : 'no live worker serving this queue runs this type';
}
