/**
 * Live controls of running processes: a worker's concurrency and a job type's retry settings
 * (`chokaq.workers`, reaching every process), and the retention purge now (`chokaq.retention`).
 */
import type { ChokaQ } from '../../chokaq.js';
import { RETRY_KEYS } from '../../job/retry.js';
import type { LiveRetry } from '../../operator/live-controls.js';
import type { RetentionAges } from '../../runtime/retention-ages.js';
import { bodyOf, queryJson, type Route } from '../routes.js';
import { actorOptions } from './inputs.js';

/** The routes of `api/workers`, `api/retry` and `api/retention`. */
export function workerRoutes(chokaq: ChokaQ): Route[] {
  return [
    {
      method: 'POST',
      path: 'workers/:id/concurrency',
      access: 'operate',
      handle: async ({ params, body, caller }) => {
        const b = bodyOf<{ concurrency: number; reason?: string }>(body, ['concurrency', 'reason']);
        await chokaq.workers.setConcurrency(
          params.id!,
          b.concurrency,
          actorOptions(caller, b.reason),
        );
        return { workerId: params.id, concurrency: b.concurrency };
      },
    },
    {
      method: 'POST',
      path: 'retry/:type',
      access: 'operate',
      handle: async ({ params, body, caller }) => {
        const { reason, ...retry } = bodyOf<LiveRetry & { reason?: string }>(body, [
          ...RETRY_KEYS,
          'reason',
        ]);
        await chokaq.workers.setRetry(params.type!, retry, actorOptions(caller, reason));
        return { type: params.type, retry };
      },
    },
    {
      method: 'GET',
      path: 'retention',
      access: 'read',
      handle: ({ query }) => chokaq.retention.preview(queryJson(query)),
    },
    {
      method: 'POST',
      path: 'retention/purge',
      access: 'operate',
      handle: ({ body, caller }) => {
        const b = bodyOf<{ ages?: RetentionAges; reason?: string }>(body, ['ages', 'reason']);
        return chokaq.retention.purge(b.ages, actorOptions(caller, b.reason));
      },
    },
  ];
}
