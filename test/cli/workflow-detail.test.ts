/**
 * `chokaq jobs show` on a workflow's jobs, against real stores: a waiting job lists what it waits
 * for (each with its state and death policy), a job others wait for lists them; `--json` carries
 * both.
 */
import { expect, it } from 'vitest';
import { ChokaQ, defineJob, silentLogger, type Store } from '../../src/index.js';
import { waitFor } from '../helpers/wait.js';
import { describeOnSeededStores, runCli } from '../helpers/cli.js';

const part = defineJob({ type: 'wf.part.v1', queue: 'parts', handle: () => 1 });
const whole = defineJob({ type: 'wf.whole.v1', queue: 'wholes', handle: () => undefined });

let first = '';
let later = '';
let parent = '';

/** Seeds one workflow: a done part, a part due in an hour, and a parent waiting for both. */
async function seed(storage: Store): Promise<void> {
  const chokaq = new ChokaQ({
    storage,
    jobs: [part, whole],
    logger: silentLogger,
    pollInterval: 50,
  });
  await chokaq.start();
  try {
    await chokaq.enqueueWorkflow((workflow) => {
      first = workflow.add(part, undefined);
      later = workflow.add(part, undefined, { delay: '1h' });
      parent = workflow.add(whole, undefined, {
        dependsOn: [first, { id: later, onDeath: 'skip' }],
      });
    });
    await waitFor(async () => (await chokaq.jobs.get(first))?.state === 'succeeded', {
      timeoutMs: 20_000,
      message: 'the first part to succeed',
    });
  } finally {
    await chokaq.stop();
  }
}

describeOnSeededStores('jobs show of a workflow on $name', 'cliwf', seed, ({ skip, flags }) => {
  it.skipIf(skip)('lists what a job waits for, and who waits for a job', async () => {
    const shown = await runCli(['jobs', 'show', parent, ...flags()], { answer: null });
    expect(shown.code).toBe(0);
    expect(shown.out).toMatch(/\nstate +awaiting\n/);
    expect(shown.out).toContain(
      `\nwaits for\n  ${first}  succeeded  (on death: fail)\n  ${later}  scheduled  (on death: skip)\n`,
    );
    const child = await runCli(['jobs', 'show', first, ...flags()], { answer: null });
    expect(child.out).toContain(`\nwaited for by\n  ${parent}\n`);
    const json = await runCli(['jobs', 'show', parent, ...flags(), '--json'], { answer: null });
    const detail = JSON.parse(json.out) as {
      dependencies: { id: string; state: string }[];
      dependents: string[];
    };
    expect(detail.dependencies.map((d) => [d.id, d.state])).toEqual([
      [first, 'succeeded'],
      [later, 'scheduled'],
    ]);
    expect(detail.dependents).toEqual([]);
  });
});
