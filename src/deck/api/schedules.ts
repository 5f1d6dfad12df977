/** Recurring jobs: the schedules with their next and last runs, and pause and resume. */
import type { ChokaQ } from '../../chokaq.js';
import type { Route } from '../routes.js';
import { actorOptions, reasonOf } from './inputs.js';

/** The routes of `api/schedules`. */
export function scheduleRoutes(chokaq: ChokaQ): Route[] {
  return [
    {
      method: 'GET',
      path: 'schedules',
      access: 'read',
      handle: () => chokaq.schedules.list(),
    },
    {
      method: 'POST',
      path: 'schedules/:name/pause',
      access: 'operate',
      handle: ({ params, body, caller }) =>
        chokaq.schedules.pause(params.name!, actorOptions(caller, reasonOf(body))),
    },
    {
      method: 'POST',
      path: 'schedules/:name/resume',
      access: 'operate',
      handle: ({ params, body, caller }) =>
        chokaq.schedules.resume(params.name!, actorOptions(caller, reasonOf(body))),
    },
  ];
}
