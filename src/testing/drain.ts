/** `drain`: wait until a started ChokaQ has nothing left to do right now. */
import type { ChokaQ } from '../chokaq.js';

/** Most hot jobs one look of {@link drain} reads. */
const DRAIN_SCAN_LIMIT = 100_000;

/** Options of {@link drain}. */
export interface DrainOptions {
  /** Give up (reject) after this many ms. Default: `10_000`. */
  timeoutMs?: number;
  /** How often to look, in ms. Default: `10`. */
  intervalMs?: number;
}

/**
 * Resolves once a started ChokaQ has nothing left to do right now: no job is fetched or
 * processing and no waiting job is due (scheduled jobs not yet due are left alone; one whose
 * time came counts as work until the promoter made it pending and it ran).
 * @throws Error when the timeout passes first, naming how many jobs were still busy.
 */
export async function drain(chokaq: ChokaQ, options: DrainOptions = {}): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const intervalMs = options.intervalMs ?? 10;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [hot, now] = await Promise.all([
      chokaq.storage.operator.listHot({ limit: DRAIN_SCAN_LIMIT }),
      chokaq.storage.cluster.now(),
    ]);
    const busy = hot.filter(
      (job) => (job.state !== 'pending' && job.state !== 'scheduled') || job.runAt <= now,
    ).length;
    if (busy === 0 && chokaq.running === 0) return;
    if (Date.now() > deadline)
      throw new Error(`drain: ${busy} jobs still busy after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
