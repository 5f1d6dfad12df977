/**
 * Jobs wherever they are: the query, counts, a job's detail and its flow, edits, cancels and
 * re-runs.
 */
import type { ChokaQ } from '../../chokaq.js';
import type { PendingJobEdit } from '../../operator/jobs-api.js';
import { bodyOf, notFound, queryJson, type Route } from '../routes.js';
import { actorOptions, dateOf, reasonOf } from './inputs.js';

/**
 * Most jobs of a flow The Deck draws on a job's page: the nearest to the job, with the bound said
 * when the flow has more (`chokaq jobs flow` and `chokaq.jobs.flow` read up to 1,000).
 */
export const DECK_FLOW_LIMIT = 200;

type EditBody = Omit<PendingJobEdit, 'actor' | 'runAt'> & { runAt?: string };

/** The routes of `api/jobs`. */
export function jobRoutes(chokaq: ChokaQ): Route[] {
  return [
    {
      method: 'GET',
      path: 'jobs',
      access: 'read',
      handle: ({ query }) => chokaq.jobs.query(queryJson(query)),
    },
    {
      method: 'GET',
      path: 'jobs/count',
      access: 'read',
      handle: ({ query }) => chokaq.jobs.count(queryJson(query)),
    },
    {
      method: 'GET',
      path: 'jobs/:id',
      access: 'read',
      handle: async ({ params }) => (await chokaq.jobs.get(params.id!)) ?? notFound('the job'),
    },
    {
      method: 'GET',
      path: 'jobs/:id/flow',
      access: 'read',
      handle: async ({ params }) =>
        (await chokaq.jobs.flow(params.id!, { limit: DECK_FLOW_LIMIT })) ?? notFound('the job'),
    },
    {
      method: 'POST',
      path: 'jobs/:id/edit',
      access: 'operate',
      handle: async ({ params, body, caller }) => {
        const b = bodyOf<EditBody>(body, [
          'payload',
          'unchecked',
          'priority',
          'tags',
          'runAt',
          'reason',
        ]);
        const { runAt, ...rest } = b;
        const edit: PendingJobEdit = { ...rest, actor: caller.actor };
        if (runAt !== undefined) edit.runAt = dateOf(runAt, 'body.runAt');
        return { edited: await chokaq.jobs.edit(params.id!, edit) };
      },
    },
    {
      method: 'POST',
      path: 'jobs/:id/rerun',
      access: 'operate',
      handle: async ({ params, body, caller }) =>
        (await chokaq.jobs.rerun(params.id!, actorOptions(caller, reasonOf(body)))) ??
        notFound('a succeeded job with this id'),
    },
    {
      method: 'POST',
      path: 'jobs/cancel',
      access: 'operate',
      handle: ({ body, caller }) => {
        const b = bodyOf<{ ids: string[]; reason?: string }>(body, ['ids', 'reason']);
        return chokaq.cancel(b.ids, actorOptions(caller, b.reason));
      },
    },
  ];
}
