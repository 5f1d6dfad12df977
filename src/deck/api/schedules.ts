/** Recurring jobs: the schedules with their next and last runs, pause, resume and trigger now. */
import type { ChokaQ } from '../../chokaq.js';
import type { Route } from '../routes.js';
import { actorOptions, pauseRoutes, reasonOf } from './inputs.js';

/** The routes of `api/schedules`. */
export function scheduleRoutes(chokaq: ChokaQ): Route[] {
  return [
    {
      method: 'GET',
      path: 'schedules',
      access: 'read',
      handle: () => chokaq.schedules.list(),
    },
    ...pauseRoutes('schedules', chokaq.schedules),
    {
      method: 'POST',
      path: 'schedules/:name/trigger',
      access: 'operate',
      handle: ({ params, body, caller }) =>
        chokaq.schedules.trigger(params.name!, actorOptions(caller, reasonOf(body))),
    },
  ];
}
