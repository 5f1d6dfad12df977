/** The overview: status, throughput over time, health, circuits, the audit trail. */
import type { ChokaQ } from '../../chokaq.js';
import type { DeckFeed } from '../feed.js';
import { queryJson, type Route } from '../routes.js';

/** The routes of the overview panels. */
export function overviewRoutes(chokaq: ChokaQ, feed: DeckFeed): Route[] {
  return [
    {
      method: 'GET',
      path: 'status',
      access: 'read',
      handle: () => chokaq.status(),
    },
    {
      method: 'GET',
      path: 'series',
      access: 'read',
      handle: async ({ query }) => {
        const q = queryJson(query) as { minutes?: number; queue?: string };
        const throughput = await chokaq.throughput(q);
        const lag =
          q.queue === undefined
            ? Object.fromEntries(feed.lag)
            : { [q.queue]: feed.lag.get(q.queue) ?? [] };
        return { throughput, lag };
      },
    },
    {
      method: 'GET',
      path: 'health',
      access: 'read',
      handle: () => chokaq.health.ready(),
    },
    {
      // The system's health (every worker, every queue, work nobody runs), not this process's.
      method: 'GET',
      path: 'system',
      access: 'read',
      handle: () => chokaq.health.system(),
    },
    {
      method: 'GET',
      path: 'audit',
      access: 'read',
      handle: ({ query }) => chokaq.audit.list(queryJson(query)),
    },
  ];
}
