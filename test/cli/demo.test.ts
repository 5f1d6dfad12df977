/**
 * `chokaq demo`: the headless summary counts the jobs of its own run only, whatever earlier runs
 * left in the store; the live demo spreads each second's jobs over the second.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { jobsAtStep, STEPS_PER_SECOND } from '../../src/cli/demo/pace.js';
import { fastJob, SAMPLE_MIX } from '../../src/cli/demo/sample-jobs.js';
import { ChokaQ, silentLogger } from '../../src/index.js';
import { embedded } from '../../src/storage/embedded/index.js';
import { runCli, type CliResult } from '../helpers/cli.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

const demo = (args: string[]): Promise<CliResult> => runCli(['demo', ...args]);

describe('chokaq demo', () => {
  it('sums up only the jobs of its own run, beside jobs of earlier runs that still wait', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chokaq-demo-own-'));
    dirs.push(dir);
    const first = await demo(['--headless', '--jobs', '60', '--data-dir', dir]);
    expect(first.code).toBe(0);
    // An earlier run left jobs behind that will not settle during the next one.
    const earlier = new ChokaQ({
      storage: embedded({ dataDir: dir }),
      jobs: SAMPLE_MIX.map(({ job }) => job),
      logger: silentLogger,
    });
    await earlier.enqueueMany(
      fastJob,
      Array.from({ length: 25 }, (_, n) => ({ payload: { n }, delay: '1h' })),
    );
    await earlier.stop();

    const second = await demo(['--headless', '--jobs', '100', '--data-dir', dir]);
    expect(second.code).toBe(0);
    const summary = JSON.parse(second.out.trim().split('\n').pop() ?? '') as Record<string, number>;
    expect(summary).toMatchObject({ enqueued: 100, hot: 0 });
    expect(summary.archived! + summary.dlq!).toBe(100);
    expect(second.err).toMatch(/enqueued 100 jobs tagged demo-run-[0-9a-f]{8}/);
    expect(second.err).toContain('settled 100/100');
  }, 120_000);

  it('spreads each second of the live demo over ten steps that add up to the rate', () => {
    for (const rate of [1, 3, 20, 37, 1000]) {
      const steps = Array.from({ length: STEPS_PER_SECOND }, (_, k) => jobsAtStep(rate, k));
      expect(steps.reduce((a, b) => a + b, 0)).toBe(rate);
      expect(Math.max(...steps) - Math.min(...steps)).toBeLessThanOrEqual(1);
    }
    expect(Array.from({ length: 10 }, (_, k) => jobsAtStep(20, k))).toEqual(Array(10).fill(2));
  });
});
