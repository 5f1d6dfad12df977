/**
 * Counts by state that filter, as Oban Web and River UI have them: `pending 12 · processing 3 ·
 * dead 40` for the view's filters, each a link to its tab narrowed to that state (the chosen
 * one again: the whole tab). Re-read live with the matrix.
 */
import type { JobState } from '../../../job/state.js';
import type { JobCount } from '../../../operator/jobs.js';
import type { JobQuery } from '../../../operator/query-input.js';
import { get } from '../lib/api.js';
import { useData } from '../lib/data.js';
import { count } from '../lib/format.js';
import { href } from '../lib/route.js';
import { MATRIX_STATES, TABS, tabOf, tabQuery, withoutState, type Tab } from '../lib/tabs.js';

/** The chips of `view` (its state left out), the `chosen` one pressed. */
export function StateChips(props: {
  tab: Tab;
  view: JobQuery;
  chosen: JobState | undefined;
  live: number | undefined;
}) {
  const base = withoutState(props.view);
  const key = JSON.stringify(base);
  const counts = useData(
    (byFeed) =>
      Promise.all(
        MATRIX_STATES.map((state) =>
          get<JobCount>('jobs/count', tabQuery(tabOf(state), { ...base, state }), byFeed),
        ),
      ),
    key,
    props.live,
  );
  return (
    <nav class="state-chips" aria-label="Jobs by state">
      {MATRIX_STATES.map((state, k) => {
        const tab = tabOf(state);
        const pressed =
          props.tab === tab && (props.chosen === state || TABS[tab].states.length === 1);
        // A tab of one state has nothing to narrow; the chosen chip again widens to the tab.
        const target =
          TABS[tab].states.length === 1 || props.chosen === state ? base : { ...base, state };
        const n = counts.data?.[k];
        return (
          <a
            key={state}
            class={`chip state-${state}${pressed ? ' pressed' : ''}`}
            href={href('jobs', tab, Object.keys(target).length ? { q: target } : {})}
            aria-current={pressed ? 'true' : undefined}
            data-state-chip={state}
          >
            {state}{' '}
            <b data-chip-count>
              {n === undefined ? '…' : `${n.exact ? '' : '≈'}${count(n.count)}`}
            </b>
          </a>
        );
      })}
    </nav>
  );
}
