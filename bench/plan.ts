/**
 * Which rows run which workloads: the pure rules behind the runner's plan and the "skipped" notes
 * of the report (unit-tested in test/unit/bench-plan.test.ts).
 */
import { CONTENDERS, SWEEP_SYSTEMS, concurrencyOf, type SystemName } from './contenders.js';
import { drainProcesses, type WorkloadName } from './types.js';
import type { Scale } from './workloads/common.js';

/** Whether a row runs a workload, and why not. */
export type Applicability =
  | { run: true }
  /** `quiet`: left out by design (the sweep's rows), not worth a note. */
  | { run: false; reason: string; quiet?: boolean };

const RUN: Applicability = { run: true };

/** Workloads of one process per row whose offered load a slow row cannot keep up with. */
const LOADED: readonly WorkloadName[] = ['W2-1p', 'W2-2p', 'W2-4p', 'W3-p99', 'W4-lag-p99', 'W5'];

/** The workloads of `chokaq-postgres-nohistory`: the drains its figure is compared on. */
const NO_HISTORY: readonly WorkloadName[] = ['W2-1p', 'W2-2p', 'W2-4p'];

/** pg-boss's defaults: one job per fetch, one fetch every 2 s per worker. */
const PGBOSS_DEFAULT_JOBS_PER_WORKER_SECOND = 1 / 2;

/** Why a peer does not run a ChokaQ-only workload. */
const CHOKAQ_ONLY = {
  'W6-operator': 'not applicable: it has no query API over finished jobs',
  'W7-observability':
    'not applicable: ChokaQ-only (its metrics and cross-process events on vs off)',
  'W9-keyed':
    'not applicable: ChokaQ-only (concurrency keys with limits across processes; pg-boss has groups, graphile-worker none)',
  'W10-flow':
    'not applicable: ChokaQ-only (jobs that wait for other jobs and read their results; neither peer has dependencies between jobs)',
} as const;

/** Whether only ChokaQ runs `workload`, at its defaults. */
function isChokaQOnly(workload: WorkloadName): workload is keyof typeof CHOKAQ_ONLY {
  return Object.hasOwn(CHOKAQ_ONLY, workload);
}

/** Whether `system` runs `workload` at `scale`, and the reason when it does not. */
export function applicability(
  system: SystemName,
  workload: WorkloadName,
  scale: Scale,
): Applicability {
  const { family, role } = CONTENDERS[system];
  if (workload === 'W2-sweep' && !SWEEP_SYSTEMS.includes(system)) {
    return { run: false, reason: 'not in the sweep', quiet: true };
  }
  if (
    (workload === 'W2-2p' || workload === 'W2-4p' || workload === 'W8-capped') &&
    system === 'chokaq-embedded'
  ) {
    return {
      run: false,
      reason:
        'not applicable: the embedded store belongs to one process (exclusive lock on its data directory)',
    };
  }
  if (isChokaQOnly(workload)) {
    if (family !== 'chokaq') {
      return { run: false, reason: CHOKAQ_ONLY[workload] };
    }
    if (role !== 'chokaq') {
      return { run: false, reason: 'not applicable: ChokaQ-only, run at its defaults' };
    }
  }
  if (system === 'chokaq-postgres-nohistory' && !NO_HISTORY.includes(workload)) {
    return {
      run: false,
      reason: 'not measured: the row without archive rows runs the drains W2-1p, W2-2p, W2-4p',
      quiet: true,
    };
  }
  if (workload === 'W8-capped' && family === 'graphile-worker') {
    return {
      run: false,
      reason:
        'not applicable: it has no cap on how many jobs of a queue run at once across processes (a named queue runs its jobs one at a time: a cap of 1 only)',
    };
  }
  if (system === 'pg-boss' && LOADED.includes(workload)) {
    return { run: false, reason: pgBossDefaultsTooSlow(workload, scale) };
  }
  return RUN;
}

/** Why pg-boss at its defaults is not measured in `workload`: its rate is fixed by polling. */
function pgBossDefaultsTooSlow(workload: WorkloadName, scale: Scale): string {
  const workers = concurrencyOf('pg-boss', scale.concurrency);
  const perProcess = workers * PGBOSS_DEFAULT_JOBS_PER_WORKER_SECOND;
  const head = `not measured: at its defaults each of its ${workers} workers fetches one job every 2 s, at most ${perProcess} jobs/s per process;`;
  switch (workload) {
    case 'W3-p99': {
      const offered = 1000 / scale.latencyGapMs;
      return `${head} the ${offered} jobs/s offered would queue up and the lag measure the backlog`;
    }
    case 'W4-lag-p99':
      return `${head} the ${scale.steadyRate} jobs/s offered would queue up and the lag measure the backlog`;
    default: {
      const processes = drainProcesses(workload);
      const minutes = scale.drainJobs / (perProcess * processes) / 60;
      return `${head} the ${scale.drainJobs.toLocaleString('en-US')}-job drain would take ${Math.round(minutes)} min or more`;
    }
  }
}
