/**
 * A fake clock drives the whole engine on the memory store: a delayed job runs once the clock
 * reaches it, and a retry waits for its backoff on the clock — no real time passes. This is the
 * README's "Testing your jobs" recipe.
 */
import { describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, silentLogger } from '../../src/index.js';
import { drain, FakeClock, memory } from '../../src/testing/index.js';

describe('the engine on a fake clock', () => {
  it('runs a delayed job and a retry when the clock says so', async () => {
    const clock = new FakeClock();
    const runs: string[] = [];
    const job = defineJob<{ name: string }>({
      type: 'clock.job.v1',
      retry: { baseDelay: '1m', jitter: 0 },
      handle({ name }, ctx) {
        runs.push(`${name}#${ctx.attempt}`);
        if (name === 'flaky' && ctx.attempt === 1) throw new Error('first try fails');
      },
    });
    const chokaq = new ChokaQ({
      storage: memory({ clock }),
      clock,
      jobs: [job],
      logger: silentLogger,
    });
    await chokaq.start();
    await chokaq.enqueue(job, { name: 'later' }, { delay: '5m' });
    await chokaq.enqueue(job, { name: 'flaky' });
    await drain(chokaq);
    expect(runs).toEqual(['flaky#1']);

    // The retry's backoff, plus one poll (1 s ± 20 %): a due job waits for the worker's next poll.
    await clock.advanceAsync(62_000);
    await drain(chokaq);
    expect(runs).toEqual(['flaky#1', 'flaky#2']);

    await clock.advanceAsync(4 * 60_000); // the delayed job is due (and polled) at 5 min
    await drain(chokaq);
    expect(runs).toEqual(['flaky#1', 'flaky#2', 'later#1']);
    await chokaq.stop();
  });
});
