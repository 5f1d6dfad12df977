/** Recurring jobs: the schedules with their next and last runs, and pause and resume. */
import type { ChokaQ } from '../../chokaq.js';
import type { Route } from '../routes.js';
import { pauseRoutes } from './inputs.js';

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
  ];
}
