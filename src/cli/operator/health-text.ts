/**
 * The system's health as `chokaq status` prints it (`chokaq.health.system()`, what The Deck's
 * System panel shows): the verdict, each part that is not ok and why, and the due jobs no live
 * worker runs, by queue and type, so stuck work is seen where the queues are.
 */
import type { StrandedReason, SystemHealth } from '../../observability/health/system.js';
import { span, table } from './render.js';

const WHY: Record<StrandedReason, string> = {
  'no-worker-serves-queue': 'no live worker serves this queue',
  'no-worker-runs-type': 'no live worker serving this queue runs this type',
};

/** `health: <status>`, the parts that are not ok, then the due jobs no live worker runs. */
export function healthText(health: SystemHealth): string {
  const parts: string[][] = [];
  if (health.db.status !== 'ok') parts.push(['database', health.db.status, health.db.message]);
  for (const w of health.workers) {
    if (w.status !== 'ok') parts.push([`worker ${w.id}`, w.status, w.message]);
  }
  for (const q of health.queues) {
    if (q.status === 'ok') continue;
    parts.push([
      `queue ${q.queue}`,
      q.status,
      `${q.due} due, the oldest for ${span(q.lagMs)} (degraded past ${span(q.degradedMs)}, unhealthy past ${span(q.unhealthyMs)})`,
    ]);
  }
  const checks = parts.length === 0 ? '' : table(['CHECK', 'STATUS', 'WHY'], parts);
  const stranded =
    health.stranded.length === 0
      ? ''
      : `\ndue jobs no live worker runs${health.strandedCapped ? ' (at least)' : ''}\n` +
        table(
          ['QUEUE', 'TYPE', 'DUE', 'WAITING', 'WHY'],
          health.stranded.map((s) => [
            s.queue,
            s.type,
            String(s.due),
            span(s.waitingMs),
            WHY[s.reason],
          ]),
        );
  return `health: ${health.status}\n${checks}${stranded}`;
}
