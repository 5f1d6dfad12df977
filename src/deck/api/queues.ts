/** Queues: their state and controls (pause, resume, hide, caps, zombie timeout). */
import type { ChokaQ } from '../../chokaq.js';
import { ChokaQError } from '../../errors.js';
import type { Duration } from '../../util/duration.js';
import { bodyOf, type Route } from '../routes.js';
import { actorOptions, pauseRoutes } from './inputs.js';

/** One change of `queues/:name/update`; exactly one field, so a request never half-applies. */
interface UpdateBody {
  maxWorkers?: number | null;
  zombieTimeout?: Duration | null;
  active?: boolean;
  reason?: string;
}

const UPDATE_FIELDS = ['maxWorkers', 'zombieTimeout', 'active'] as const;

/** The routes of `api/queues`. */
export function queueRoutes(chokaq: ChokaQ): Route[] {
  return [
    {
      method: 'GET',
      path: 'queues',
      access: 'read',
      handle: async () => {
        const [queues, status] = await Promise.all([chokaq.queues.list(), chokaq.status()]);
        const byName = new Map(status.queues.map((q) => [q.queue, q]));
        return queues.map((q) => ({ ...q, status: byName.get(q.name) ?? null }));
      },
    },
    ...pauseRoutes('queues', chokaq.queues),
    {
      method: 'POST',
      path: 'queues/:name/update',
      access: 'operate',
      handle: ({ params, body, caller }) => {
        const b = bodyOf<UpdateBody>(body, [...UPDATE_FIELDS, 'reason']);
        const given = UPDATE_FIELDS.filter((f) => b[f] !== undefined);
        if (given.length !== 1) {
          throw new ChokaQError(
            'CHOKAQ_INVALID_ARGUMENT',
            `body must set exactly one of ${UPDATE_FIELDS.join(', ')} (got ${given.length === 0 ? 'none' : given.join(', ')})`,
            { field: 'body' },
          );
        }
        const options = actorOptions(caller, b.reason);
        const name = params.name!;
        if (b.maxWorkers !== undefined)
          return chokaq.queues.setMaxWorkers(name, b.maxWorkers, options);
        if (b.zombieTimeout !== undefined)
          return chokaq.queues.setZombieTimeout(name, b.zombieTimeout, options);
        return chokaq.queues.setActive(name, b.active!, options);
      },
    },
  ];
}
