/**
 * `chokaq jobs show` of a batch's jobs, against real stores: a member and a callback show their
 * batch in one line (id, role, counts, which callbacks fired); `--json` carries it.
 */
import { expect, it } from 'vitest';
import { ChokaQ, defineJob, silentLogger, type Store } from '../../src/index.js';
import { waitFor } from '../helpers/wait.js';
import { describeOnSeededStores, runCli } from '../helpers/cli.js';

const part = defineJob({ type: 'bt.part.v1', queue: 'parts', handle: () => 1 });
const report = defineJob({ type: 'bt.report.v1', queue: 'reports', handle: () => undefined });

let batchId = '';
let first = '';
let callback = '';

/** Seeds one batch: a done member, a member due in an hour, and an onSuccess callback. */
async function seed(storage: Store): Promise<void> {
  const chokaq = new ChokaQ({
    storage,
    jobs: [part, report],
    logger: silentLogger,
    pollInterval: 50,
  });
  await chokaq.start();
  try {
    const result = await chokaq.enqueueBatch((batch) => {
      first = batch.add(part, undefined);
      batch.add(part, undefined, { delay: '1h' });
      callback = batch.onSuccess(report, undefined);
    });
    batchId = result.id;
    await waitFor(async () => (await chokaq.jobs.get(first))?.state === 'succeeded', {
      timeoutMs: 20_000,
      message: 'the first member to succeed',
    });
  } finally {
    await chokaq.stop();
  }
}

describeOnSeededStores('jobs show of a batch on $name', 'clibt', seed, ({ skip, flags }) => {
  it.skipIf(skip)("shows a member's and a callback's batch", async () => {
    const shown = await runCli(['jobs', 'show', first, ...flags()], { answer: null });
    expect(shown.code).toBe(0);
    expect(shown.out).toMatch(
      new RegExp(
        `\\nbatch +${batchId} \\(member\\): 1/2 succeeded, 0 died, 0 cancelled, 1 pending; success waiting\\n`,
      ),
    );
    const waiting = await runCli(['jobs', 'show', callback, ...flags()], { answer: null });
    expect(waiting.out).toMatch(/\nstate +awaiting\n/);
    expect(waiting.out).toContain(`${batchId} (success callback): 1/2 succeeded`);
    const json = await runCli(['jobs', 'show', first, ...flags(), '--json'], { answer: null });
    const detail = JSON.parse(json.out) as { batch: { role: string; batch: { id: string } } };
    expect(detail.batch).toMatchObject({ role: 'member', batch: { id: batchId, total: 2 } });
  });
});
