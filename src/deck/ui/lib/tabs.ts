/** The job matrix's tabs: shared by the matrix, its filter bar, its state chips and row actions. */
import type { JobState } from '../../../job/state.js';
import type { JobQuery } from '../../../operator/query-input.js';

/** The tabs and the states each shows. */
export const TABS = {
  active: {
    label: 'Active',
    states: ['awaiting', 'scheduled', 'pending', 'fetched', 'processing'],
  },
  archive: { label: 'Archive', states: ['succeeded'] },
  dlq: { label: 'DLQ', states: ['dead'] },
} as const;

/** A tab of the job matrix. */
export type Tab = keyof typeof TABS;

/** Every state the matrix shows, in tab order (the state chips). */
export const MATRIX_STATES: readonly JobState[] = Object.values(TABS).flatMap((t) => t.states);

/** The tab that shows `state`. */
export function tabOf(state: JobState): Tab {
  return (Object.keys(TABS) as Tab[]).find((t) =>
    (TABS[t].states as readonly JobState[]).includes(state),
  )!;
}

/** The one state a view narrows its tab to (a state chip), if any. */
export function chosenState(tab: Tab, view: JobQuery): JobState | undefined {
  const state = Array.isArray(view.state) ? undefined : (view.state as JobState | undefined);
  return state !== undefined && (TABS[tab].states as readonly JobState[]).includes(state)
    ? state
    : undefined;
}

/**
 * The query a tab runs for a view: the tab's states (or the one state chosen among them); the
 * DLQ-only filters do not follow a view into the other tabs.
 */
export function tabQuery(tab: Tab, view: JobQuery): JobQuery {
  const state = chosenState(tab, view);
  const query: JobQuery = { ...view, state: state ?? [...TABS[tab].states] };
  if (tab !== 'dlq') {
    delete query.reason;
    delete query.errorGroup;
  }
  return query;
}

/** A view without its state: what a tab link or the filter bar's reset carries on. */
export function withoutState(view: JobQuery): JobQuery {
  const rest = { ...view };
  delete rest.state;
  return rest;
}
