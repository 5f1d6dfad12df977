import { describe, expect, it } from 'vitest';
import type { WorkerResult } from '../../bench/recorder.js';
import { WIDTH, fanInGaps } from '../../bench/workloads/w10-flow.js';

/** A worker result that ran job `i` at `starts[i]` (ms), in the order given. */
function ran(order: readonly number[], starts: readonly number[]): WorkerResult {
  return {
    indices: [...order],
    lags: order.map(() => 0),
    starts: order.map((i) => starts[i] as number),
    maxRss: 0,
    cpuUserUs: 0,
    cpuSystemUs: 0,
  };
}

describe('W10: from the last child to the fan-in job', () => {
  it('measures each flow from its latest child, whichever process ran it', () => {
    // Flow 0: children at 1..10 ms, fan-in at 25; flow 1: children at 100..109, fan-in at 112.
    const starts = [
      ...Array.from({ length: WIDTH }, (_, c) => c + 1),
      25,
      ...Array.from({ length: WIDTH }, (_, c) => 100 + c),
      112,
    ];
    const all = starts.map((_, i) => i);
    const gaps = fanInGaps([ran(all.slice(0, 15), starts), ran(all.slice(15), starts)], 2);
    expect(gaps).toEqual([15, 3]);
  });

  it('gives a negative gap when a fan-in job started before a child, NaN when one did not run', () => {
    const starts = [...Array.from({ length: WIDTH }, () => 10), 5];
    expect(
      fanInGaps([ran([10, ...Array.from({ length: WIDTH }, (_, c) => c)], starts)], 1),
    ).toEqual([-5]);
    expect(fanInGaps([ran([0, 1, 10], starts)], 1)[0]).toBeNaN();
  });
});
