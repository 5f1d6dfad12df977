import { describe, expect, it } from 'vitest';
import {
  SWEEP_SYSTEMS,
  TUNED_PEERS,
  concurrencyOf,
  type SystemName,
} from '../../bench/contenders.js';
import { applicability } from '../../bench/plan.js';
import { WORKLOADS, type WorkloadName } from '../../bench/types.js';
import { FULL_SCALE } from '../../bench/workloads/common.js';

const runs = (system: SystemName): WorkloadName[] =>
  WORKLOADS.filter((w) => applicability(system, w, FULL_SCALE).run);

/** The reason `system` does not run `workload` ('' when it runs). */
const reason = (system: SystemName, workload: WorkloadName): string => {
  const verdict = applicability(system, workload, FULL_SCALE);
  return verdict.run ? '' : verdict.reason;
};

describe('the rows', () => {
  it('compares with each peer at its best settings and sweeps those against ChokaQ', () => {
    expect(TUNED_PEERS).toEqual(['pg-boss-batch500', 'graphile-worker-batched']);
    expect(SWEEP_SYSTEMS).toEqual(['chokaq-postgres', ...TUNED_PEERS]);
  });

  it('runs the row at its own concurrency when it names one', () => {
    expect(concurrencyOf('chokaq-postgres-c128', 32)).toBe(128);
    expect(concurrencyOf('chokaq-postgres', 32)).toBe(32);
    expect(concurrencyOf('graphile-worker-batched', 8)).toBe(8);
  });
});

describe('applicability', () => {
  it('runs every workload for ChokaQ on PostgreSQL at its defaults', () => {
    expect(runs('chokaq-postgres')).toEqual([...WORKLOADS]);
  });

  it('keeps the single-process embedded store out of multi-process workloads', () => {
    expect(runs('chokaq-embedded')).not.toContain('W2-2p');
    expect(runs('chokaq-embedded')).not.toContain('W8-capped');
    expect(reason('chokaq-embedded', 'W2-2p')).toContain('one process');
  });

  it('runs the ChokaQ-only workloads at ChokaQ defaults only', () => {
    expect(runs('chokaq-postgres-c128')).not.toContain('W6-operator');
    expect(runs('graphile-worker-batched')).not.toContain('W7-observability');
    expect(runs('chokaq-postgres-c128')).not.toContain('W9-keyed');
    expect(reason('pg-boss-batch500', 'W9-keyed')).toContain('ChokaQ-only');
  });

  it('runs the flow workload for ChokaQ at its defaults only, on both providers', () => {
    expect(runs('chokaq-postgres')).toContain('W10-flow');
    expect(runs('chokaq-embedded')).toContain('W10-flow');
    expect(runs('chokaq-postgres-c128')).not.toContain('W10-flow');
    expect(runs('chokaq-postgres-nohistory')).not.toContain('W10-flow');
    expect(reason('graphile-worker-batched', 'W10-flow')).toContain(
      'neither peer has dependencies',
    );
    expect(reason('pg-boss-batch500', 'W10-flow')).toContain('ChokaQ-only');
  });

  it('leaves graphile-worker out of the capped queue, with the reason', () => {
    expect(reason('graphile-worker-batched', 'W8-capped')).toContain('no cap');
    expect(runs('pg-boss-batch500')).toContain('W8-capped');
  });

  it('leaves rows out of the sweep quietly', () => {
    expect(applicability('pg-boss', 'W2-sweep', FULL_SCALE)).toEqual({
      run: false,
      reason: 'not in the sweep',
      quiet: true,
    });
  });

  it('does not time pg-boss at its defaults where its polling alone sets the figure', () => {
    expect(runs('pg-boss')).toEqual(['W1-single', 'W1-bulk', 'W8-capped']);
    expect(applicability('pg-boss', 'W2-2p', FULL_SCALE)).toEqual({
      run: false,
      reason:
        'not measured: at its defaults each of its 32 workers fetches one job every 2 s, at most 16 jobs/s per process; the 20,000-job drain would take 10 min or more',
    });
    expect(reason('pg-boss', 'W4-lag-p99')).toContain('the 500 jobs/s offered would queue up');
  });
});
