/**
 * Due jobs no live worker runs, flagged where they wait in the job matrix's Active tab: a note
 * above the rows (queue, type, how many, why, a link to System) and a `no worker` badge on each
 * due row of such a queue and type. From the system health (`api/system`), as the Queues row and
 * the Overview card show it.
 */
import type { ComponentChildren } from 'preact';
import type { StrandedWork } from '../../../observability/health/system.js';
import type { JobSummary } from '../../../storage/model.js';
import { count } from '../lib/format.js';
import { href } from '../lib/route.js';
import { strandedWhy, useSystem } from '../lib/system.js';

/** Renders `children` with the due work no live worker runs, read live while shown. */
export function WithStranded(props: {
  children: (stranded: readonly StrandedWork[]) => ComponentChildren;
}) {
  const stranded = useSystem().data?.stranded ?? [];
  return <>{props.children(stranded)}</>;
}

/** The stranded entry a job belongs to: due, of its queue and type (types compared as claims do). */
export function strandedOf(
  job: JobSummary,
  stranded: readonly StrandedWork[],
): StrandedWork | undefined {
  if (job.state !== 'pending') return undefined;
  const type = job.type.toLowerCase();
  return stranded.find((s) => s.queue === job.queue && s.type.toLowerCase() === type);
}

/** The note above the Active tab's rows: the stranded work of `queues` (`undefined`: every queue). */
export function StrandedNote(props: {
  stranded: readonly StrandedWork[];
  queues: readonly string[] | undefined;
}) {
  const shown = props.stranded.filter((s) => props.queues?.includes(s.queue) ?? true);
  if (shown.length === 0) return null;
  return (
    <div class="stranded-note" role="status" data-stranded-note>
      {shown.map((s) => (
        <div key={`${s.queue} ${s.type}`} class="stranded">
          {count(s.due)} due of <span class="mono">{s.type}</span> in {s.queue}:{' '}
          {strandedWhy(s.reason)}
        </div>
      ))}
      <a href={href('system')}>System health</a>
    </div>
  );
}

/** The badge of a due row no live worker runs. */
export function StrandedBadge(props: { entry: StrandedWork }) {
  return (
    <span class="pill unhealthy" data-stranded-row title={strandedWhy(props.entry.reason)}>
      no worker
    </span>
  );
}
