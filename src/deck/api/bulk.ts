/** Bulk actions: preview, confirm with the token and a reason, follow, stop. */
import type { ChokaQ } from '../../chokaq.js';
import type { BulkRequest } from '../../operator/bulk-input.js';
import { bodyOf, notFound, queryJson, type Route } from '../routes.js';

/** The routes of `api/bulk`. */
export function bulkRoutes(chokaq: ChokaQ): Route[] {
  return [
    {
      method: 'GET',
      path: 'bulk',
      access: 'read',
      handle: ({ query }) => chokaq.bulk.list(queryJson(query)),
    },
    {
      method: 'GET',
      path: 'bulk/:id',
      access: 'read',
      handle: async ({ params }) => {
        const action = (await chokaq.bulk.get(params.id!)) ?? notFound('the bulk action');
        return { action, skipped: await chokaq.bulk.skipped(action.id, { limit: 100 }) };
      },
    },
    {
      method: 'POST',
      path: 'bulk/preview',
      access: 'operate',
      handle: ({ body }) =>
        chokaq.bulk.preview(bodyOf<BulkRequest>(body, ['action', 'target', 'edit'])),
    },
    {
      method: 'POST',
      path: 'bulk/run',
      access: 'operate',
      handle: ({ body, caller }) => {
        const b = bodyOf<{ token: string; reason: string }>(body, ['token', 'reason']);
        return chokaq.bulk.run(b.token, { actor: caller.actor, reason: b.reason });
      },
    },
    {
      method: 'POST',
      path: 'bulk/:id/cancel',
      access: 'operate',
      handle: async ({ params, caller }) =>
        (await chokaq.bulk.cancel(params.id!, { actor: caller.actor })) ??
        notFound('the bulk action'),
    },
  ];
}
