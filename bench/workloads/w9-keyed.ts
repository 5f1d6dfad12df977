/**
 * W9 keyed drain: the W2-1p drain with every job carrying a concurrency key — `KEYS` keys, job
 * `i` in key `i % KEYS`, each limited to `KEY_LIMIT` jobs at once across processes (ChokaQ's
 * `concurrencyKey` / `concurrencyLimit`, docs/flow-control.md). The limits allow more than the
 * worker's concurrency, so the drain measures what keys cost (the keyed claim that probes every
 * waiting key and ranks their turns), not a limit holding jobs back. Only ChokaQ has keys with limits
 * across processes, so the peers skip it. Detail: the change against ChokaQ's own W2-1p.
 */
import { KEY_LIMIT } from '../systems/chokaq.js';
import type { Detail } from '../types.js';
import { noopWorkers, preEnqueue, type WorkloadContext, type WorkloadOutcome } from './common.js';
import { cpuPerJob, drainOnce } from './w2-drain.js';

/** Concurrency keys the jobs are spread over. */
const KEYS = 100;

/** Runs W9 for one system. */
export async function runKeyed(ctx: WorkloadContext): Promise<WorkloadOutcome> {
  const { system } = ctx;
  await ctx.adapter.reset();
  const n = ctx.scale.drainJobs;
  const drain = await drainOnce(ctx, 1, noopWorkers(ctx), n, () =>
    preEnqueue(ctx, n, (i) => `tenant-${i % KEYS}`),
  );
  const { rate } = drain;
  const details: Detail[] = cpuPerJob(
    ctx,
    'W9-keyed',
    drain,
    n,
    `${KEYS} keys, limit ${KEY_LIMIT} each`,
  );
  const w2 = ctx.earlier.find((r) => r.workload === 'W2-1p' && r.system === system);
  if (w2 !== undefined) {
    details.push({
      workload: 'W9-keyed',
      system,
      metric: 'vs own W2-1p',
      value: (rate / w2.value - 1) * 100,
      unit: '%',
    });
  }
  return { rows: [{ workload: 'W9-keyed', system, value: rate, unit: 'jobs/s' }], details };
}
