/**
 * `chokaq jobs flow` against real stores: a fan-out and fan-in with a dead child, a job that died
 * waiting for it and an awaiting parent, printed layer by layer with each job's state and what it
 * waits for; `--limit` cuts it and says so; `--json` is the API's `JobFlow`; an unknown id and a
 * bad limit are errors; `dlq resurrect --flow` takes the flow's dead jobs. (test/cli/read-only.test.ts proves the command writes nothing.)
 */
import { expect, it } from 'vitest';
import { ChokaQ, defineJob, FatalError, silentLogger, type Store } from '../../src/index.js';
import type { JobFlow } from '../../src/operator/job-flow.js';
import { waitFor } from '../helpers/wait.js';
import { describeOnSeededStores, runCli } from '../helpers/cli.js';

const fetch = defineJob({ type: 'flow.fetch.v1', queue: 'flow-a', handle: () => 1 });
const resize = defineJob({
  type: 'flow.resize.v1',
  queue: 'flow-b',
  handle: (payload: { width: number }) => {
    if (payload.width === 640) throw new FatalError('source image is corrupt');
    return payload.width;
  },
});
const merge = defineJob({ type: 'flow.merge.v1', queue: 'flow-c', handle: () => undefined });

const ids = { fetch: '', small: '', broken: '', later: '', merge: '', notify: '' };

/** Seeds one flow and runs it as far as it goes. */
async function seed(storage: Store): Promise<void> {
  const chokaq = new ChokaQ({
    storage,
    jobs: [fetch, resize, merge],
    logger: silentLogger,
    pollInterval: 50,
  });
  await chokaq.start();
  try {
    await chokaq.enqueueWorkflow((workflow) => {
      ids.fetch = workflow.add(fetch, undefined);
      ids.small = workflow.add(resize, { width: 320 }, { dependsOn: [ids.fetch] });
      ids.broken = workflow.add(resize, { width: 640 }, { dependsOn: [ids.fetch] });
      ids.later = workflow.add(resize, { width: 1280 }, { dependsOn: [ids.fetch], delay: '1h' });
      ids.merge = workflow.add(merge, undefined, {
        dependsOn: [ids.small, { id: ids.broken, onDeath: 'skip' }, ids.later],
      });
      ids.notify = workflow.add(merge, undefined, { dependsOn: [ids.broken] });
    });
    await waitFor(
      async () =>
        (await chokaq.jobs.get(ids.notify))?.state === 'dead' &&
        (await chokaq.jobs.get(ids.small))?.state === 'succeeded',
      { timeoutMs: 20_000, message: 'the flow to go as far as it can' },
    );
  } finally {
    await chokaq.stop();
  }
}

describeOnSeededStores('jobs flow on $name', 'cliflow', seed, ({ skip, flags }) => {
  it.skipIf(skip)('prints the flow layer by layer, each job with what it waits for', async () => {
    const shown = await runCli(['jobs', 'flow', ids.merge, ...flags()], { answer: null });
    expect(shown.code, shown.err).toBe(0);
    const lines = shown.out.split('\n');
    expect(lines[0]).toBe(`flow of ${ids.merge}: 6 jobs, 7 dependencies; * marks this job`);
    // Layer 0, then the three children of layer 1 in id order, then the two of layer 2.
    const rows = lines.slice(3, 9).map((line) => line.split(/ {2,}/));
    expect(rows).toEqual([
      ['1', '0', 'succeeded', 'flow.fetch.v1', 'flow-a', ids.fetch, '-'],
      ['2', '1', 'succeeded', 'flow.resize.v1', 'flow-b', ids.small, '1'],
      ['3', '1', 'dead (Fatal)', 'flow.resize.v1', 'flow-b', ids.broken, '1'],
      ['4', '1', 'scheduled', 'flow.resize.v1', 'flow-b', ids.later, '1'],
      ['5*', '2', 'awaiting', 'flow.merge.v1', 'flow-c', ids.merge, '2, 3 (skip), 4'],
      ['6', '2', 'dead (DependencyFailed)', 'flow.merge.v1', 'flow-c', ids.notify, '3'],
    ]);
    expect(shown.out).toContain(
      `\nerrors\n  3  FATAL: FatalError: source image is corrupt\n  6  its dependency ${ids.broken} died\n`,
    );
    // The same flow from any of its jobs, the mark on that job.
    const fromRoot = await runCli(['jobs', 'flow', ids.fetch, ...flags()], { answer: null });
    const rootRows = fromRoot.out
      .split('\n')
      .slice(3, 9)
      .map((line) => line.split(/ {2,}/));
    expect(rootRows[0]?.[0]).toBe('1*');
    const unmarked = (table: string[][]) =>
      table.map(([n, ...rest]) => [n?.replace('*', ''), ...rest]);
    expect(unmarked(rootRows)).toEqual(unmarked(rows));
  });

  it.skipIf(skip)('cuts the flow at --limit and says so; --json is the API result', async () => {
    const cut = await runCli(['jobs', 'flow', ids.notify, '--limit', '2', ...flags()], {
      answer: null,
    });
    expect(cut.out.split('\n').slice(0, 2)).toEqual([
      `flow of ${ids.notify}: 2 jobs, 1 dependency; * marks this job`,
      'showing the 2 jobs nearest to it: more are connected, and their dependencies are left out',
    ]);
    const json = await runCli(['jobs', 'flow', ids.merge, '--json', ...flags()], { answer: null });
    const flow = JSON.parse(json.out) as JobFlow;
    expect([flow.id, flow.truncated, flow.limit, flow.nodes.length]).toEqual([
      ids.merge,
      false,
      1000,
      6,
    ]);
    expect(flow.edges).toContainEqual({
      dependency: ids.broken,
      dependent: ids.merge,
      onDeath: 'skip',
    });
    expect(flow.nodes.find((node) => node.id === ids.notify)).toMatchObject({
      state: 'dead',
      reason: 'DependencyFailed',
      depth: 2,
    });
  });

  it.skipIf(skip)("previews a bulk resurrect of the flow's dead jobs with --flow", async () => {
    const preview = await runCli(
      ['dlq', 'resurrect', '--flow', ids.fetch, '--reason', 'retry', '--preview', ...flags()],
      { answer: null },
    );
    expect(preview.code, preview.err).toBe(0);
    expect(preview.err).toContain('2 jobs to resurrect');
    expect(preview.out).toContain(ids.broken);
    expect(preview.out).toContain(ids.notify);
  });

  it.skipIf(skip)('refuses an unknown job and a bad limit', async () => {
    const unknown = await runCli(['jobs', 'flow', 'no-such-job', ...flags()], { answer: null });
    expect([unknown.code, unknown.out]).toEqual([1, '']);
    expect(unknown.err).toContain('no job no-such-job in the hot table, the archive or the DLQ');
    const bad = await runCli(['jobs', 'flow', ids.merge, '--limit', '0', ...flags()], {
      answer: null,
    });
    expect(bad.err).toContain("--limit must be a whole number from 1 to 1000, got '0'");
    expect(bad.code).not.toBe(0);
  });
});
