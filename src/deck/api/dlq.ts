/** The dead-letter queue: error groups and their trend, in-place edits, resurrect and purge of chosen jobs. */
import type { ChokaQ } from '../../chokaq.js';
import type { DeadJobEdit } from '../../chokaq.js';
import { checkOptions } from '../../util/check.js';
import { bodyOf, queryJson, type Route } from '../routes.js';
import { actorOptions } from './inputs.js';

type EditBody = Omit<DeadJobEdit, 'actor'>;
const EDIT_KEYS = ['payload', 'unchecked', 'tags', 'reason'] as const;

interface IdsBody {
  ids: string[];
  reason?: string;
}

/** The routes of `api/dlq`. */
export function dlqRoutes(chokaq: ChokaQ): Route[] {
  return [
    {
      method: 'GET',
      path: 'dlq/groups',
      access: 'read',
      handle: ({ query }) => chokaq.dlq.groups(queryJson(query)),
    },
    {
      method: 'GET',
      path: 'dlq/trend',
      access: 'read',
      handle: ({ query }) => {
        const q = checkOptions(
          queryJson(query) as { groups?: string[] },
          'q',
          ['groups'],
          'CHOKAQ_INVALID_ARGUMENT',
        );
        return chokaq.dlq.trend(q.groups ?? []);
      },
    },
    {
      method: 'POST',
      path: 'dlq/:id/edit',
      access: 'operate',
      handle: async ({ params, body, caller }) => {
        const b = bodyOf<EditBody>(body, EDIT_KEYS);
        return { edited: await chokaq.dlq.edit(params.id!, { ...b, actor: caller.actor }) };
      },
    },
    {
      // Fix and resurrect in one step: the edit in place, then the resurrect, each audited.
      method: 'POST',
      path: 'dlq/:id/fix',
      access: 'operate',
      handle: async ({ params, body, caller }) => {
        const b = bodyOf<EditBody>(body, EDIT_KEYS);
        const id = params.id!;
        const edited = await chokaq.dlq.edit(id, { ...b, actor: caller.actor });
        const moved = edited
          ? await chokaq.dlq.resurrect([id], actorOptions(caller, b.reason))
          : [];
        return { edited, resurrected: moved.length === 1 };
      },
    },
    {
      method: 'POST',
      path: 'dlq/resurrect',
      access: 'operate',
      handle: async ({ body, caller }) => {
        const b = bodyOf<IdsBody>(body, ['ids', 'reason']);
        return { moved: await chokaq.dlq.resurrect(b.ids, actorOptions(caller, b.reason)) };
      },
    },
    {
      method: 'POST',
      path: 'dlq/purge',
      access: 'operate',
      handle: async ({ body, caller }) => {
        const b = bodyOf<IdsBody>(body, ['ids', 'reason']);
        return { purged: await chokaq.dlq.purge(b.ids, actorOptions(caller, b.reason)) };
      },
    },
  ];
}
