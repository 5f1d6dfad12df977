/**
 * Durable steps end to end on every provider: a retried job replays its recorded steps without
 * running them again, a sleep gives the worker's slot to other jobs until it ends, an event wait
 * resumes when `sendEvent` delivers or its timeout passes, and the coded errors of misused steps.
 * The tests move one clock shared by the store and the engine; they never wait for time.
 */
import { describe, expect, it } from 'vitest';
import { defineJob, type ChokaQ, type ChokaQOptions, type EventResult } from '../../src/index.js';
import { waitForJob } from '../../src/testing/index.js';
import { JumpingClock } from '../helpers/jumping-clock.js';
import { waitFor } from '../helpers/wait.js';
import { useEngines } from './engines.js';
import type { EngineStoreFactory } from './suite.js';

const HOUR = 3_600_000;

/** Registers the durable-step tests of one provider. */
export function describeSteps(name: string, factory: EngineStoreFactory): void {
  describe(`durable steps on ${name}`, () => {
    const { started } = useEngines(name, factory);

    /** A started engine on a fresh store, both on one clock the test moves. */
    async function engineOnClock(
      options: Omit<ChokaQOptions, 'storage'>,
    ): Promise<{ chokaq: ChokaQ; clock: JumpingClock }> {
      const clock = new JumpingClock();
      const chokaq = await started(await factory.make({ clock }), { ...options, clock });
      return { chokaq, clock };
    }

    /** Waits until job `id` is scheduled (its run gave the slot back). */
    async function suspended(chokaq: ChokaQ, id: string): Promise<void> {
      await waitFor(async () => (await chokaq.jobs.get(id))?.state === 'scheduled', {
        timeoutMs: 10_000,
      });
    }

    it('replays recorded steps in a retry: each step ran once, every run saw its result', async () => {
      const calls = { charge: 0, runs: 0 };
      const seen: unknown[] = [];
      const job = defineJob<{ amount: number }>({
        type: 'steps.retry.v1',
        retry: { maxAttempts: 3, baseDelay: 1, jitter: 0 },
        async handle({ amount }, ctx) {
          calls.runs += 1;
          const receipt = await ctx.step('charge', () => {
            calls.charge += 1;
            return { amount, at: new Date(0) };
          });
          seen.push(receipt);
          if (ctx.attempt === 1) throw new Error('mail server down');
          return receipt.amount;
        },
      });
      const { chokaq } = await engineOnClock({ jobs: [job] });
      const { id } = await chokaq.enqueue(job, { amount: 42 });
      const done = await waitForJob(chokaq, id, 'succeeded', { timeoutMs: 10_000 });
      expect(done.result).toBe('42');
      expect(calls).toEqual({ charge: 1, runs: 2 });
      // The first run saw the result as read back from JSON, as the replay did.
      expect(seen).toEqual([
        { amount: 42, at: '1970-01-01T00:00:00.000Z' },
        { amount: 42, at: '1970-01-01T00:00:00.000Z' },
      ]);
      const detail = await chokaq.jobs.get(id);
      expect(detail?.steps.map((step) => [step.name, step.kind, step.state])).toEqual([
        ['charge', 'run', 'done'],
      ]);
    });

    it('replays recorded steps in a job resurrected from the DLQ', async () => {
      let calls = 0;
      let broken = true;
      const job = defineJob({
        type: 'steps.resurrect.v1',
        retry: { maxAttempts: 1 },
        async handle(_payload, ctx) {
          const value = await ctx.step('once', () => ++calls);
          if (broken) throw new Error('downstream is down');
          return value;
        },
      });
      const { chokaq } = await engineOnClock({ jobs: [job] });
      const { id } = await chokaq.enqueue(job, {});
      await waitForJob(chokaq, id, 'dead', { timeoutMs: 10_000 });
      broken = false;
      await chokaq.dlq.resurrect([id]);
      const done = await waitForJob(chokaq, id, 'succeeded', { timeoutMs: 10_000 });
      expect(done.result).toBe('1');
      expect(calls).toBe(1);
    });

    it('sleeps without holding a slot, then goes on after the recorded steps', async () => {
      const order: string[] = [];
      const sleeper = defineJob({
        type: 'steps.sleeper.v1',
        async handle(_payload, ctx) {
          await ctx.step('before', () => void order.push('before'));
          await ctx.sleep('cool-off', '1h');
          order.push('after');
        },
      });
      const other = defineJob({
        type: 'steps.other.v1',
        handle: () => void order.push('other'),
      });
      const { chokaq, clock } = await engineOnClock({ jobs: [sleeper, other], concurrency: 1 });
      const suspensions: Date[] = [];
      chokaq.on('job:suspended', (e) => suspensions.push(e.wakeAt));
      await chokaq.metrics.prometheusText(); // Prometheus counts from its first read
      const { id } = await chokaq.enqueue(sleeper, {});
      await suspended(chokaq, id);
      // The only slot is free: another job runs while the first one sleeps.
      const second = await chokaq.enqueue(other, {});
      await waitForJob(chokaq, second.id, 'succeeded', { timeoutMs: 10_000 });
      const asleep = await chokaq.jobs.get(id);
      expect(asleep?.found.job.attempts).toBe(0);
      expect(asleep?.steps.map((step) => [step.name, step.state])).toEqual([
        ['before', 'done'],
        ['cool-off', 'sleeping'],
      ]);
      clock.jump(HOUR + 1_000);
      const done = await waitForJob(chokaq, id, 'succeeded', { timeoutMs: 10_000 });
      expect(order).toEqual(['before', 'other', 'after']);
      expect(suspensions).toHaveLength(1);
      expect(await chokaq.metrics.prometheusText()).toMatch(
        /chokaq_jobs_suspended_total\{[^}]*type="steps\.sleeper\.v1"[^}]*\} 1\n/,
      );
      expect(done.attempts).toBe(1);
      const detail = await chokaq.jobs.get(id);
      expect(
        detail?.timeline.some((entry) => entry.kind === 'run' && entry.outcome === 'suspended'),
      ).toBe(true);
    });

    it('waits for an event: sendEvent wakes the job, which reads the data; finished jobs refuse events', async () => {
      const outcomes: EventResult<{ by: string }>[] = [];
      const approval = defineJob({
        type: 'steps.approval.v1',
        async handle(_payload, ctx) {
          const outcome = await ctx.waitForEvent<{ by: string }>('approved', 'approval', {
            timeout: '1d',
          });
          outcomes.push(outcome);
          return outcome.received ? outcome.data.by : null;
        },
      });
      const { chokaq } = await engineOnClock({ jobs: [approval] });
      const { id } = await chokaq.enqueue(approval, {});
      await suspended(chokaq, id);
      expect(await chokaq.sendEvent(id, 'approval', { by: 'ann' })).toEqual({ woke: true });
      const done = await waitForJob(chokaq, id, 'succeeded', { timeoutMs: 10_000 });
      expect(done.result).toBe('"ann"');
      expect(outcomes).toEqual([{ received: true, data: { by: 'ann' } }]);
      await expect(chokaq.sendEvent(id, 'approval', 1)).rejects.toMatchObject({
        code: 'CHOKAQ_JOB_NOT_ACTIVE',
      });
      await expect(chokaq.sendEvent(id, '', 1)).rejects.toMatchObject({
        code: 'CHOKAQ_INVALID_ARGUMENT',
        field: 'topic',
      });
    });

    it('takes no step after a sleep gave the job back, even when the handler catches the throw', async () => {
      let after = 0;
      const stubborn = defineJob({
        type: 'steps.stubborn.v1',
        async handle(_payload, ctx) {
          try {
            await ctx.sleep('nap', '1h');
          } catch {
            // Goes on as if nothing happened: its steps must refuse.
          }
          await ctx.step('after', () => ++after);
        },
      });
      const { chokaq } = await engineOnClock({ jobs: [stubborn] });
      const { id } = await chokaq.enqueue(stubborn, {});
      await suspended(chokaq, id);
      const detail = await chokaq.jobs.get(id);
      expect(after).toBe(0);
      expect(detail?.steps.map((step) => step.name)).toEqual(['nap']);
    });

    it('ends a wait at its timeout with received: false', async () => {
      const approval = defineJob({
        type: 'steps.timeout.v1',
        async handle(_payload, ctx) {
          return ctx.waitForEvent('approved', 'approval', { timeout: '1h' });
        },
      });
      const { chokaq, clock } = await engineOnClock({ jobs: [approval] });
      const { id } = await chokaq.enqueue(approval, {});
      await suspended(chokaq, id);
      clock.jump(HOUR + 1_000);
      const done = await waitForJob(chokaq, id, 'succeeded', { timeoutMs: 10_000 });
      expect(done.result).toBe('{"received":false}');
    });

    it('fails a run that repeats a step name or changes a step kind, with coded errors', async () => {
      let version = 1;
      const job = defineJob({
        type: 'steps.changed.v1',
        retry: { maxAttempts: 2, baseDelay: 1, jitter: 0 },
        async handle(_payload, ctx) {
          if (version === 1) {
            await ctx.step('x', () => 1);
            version = 2;
            throw new Error('first run fails');
          }
          await ctx.sleep('x', '1m');
        },
      });
      const twice = defineJob({
        type: 'steps.twice.v1',
        retry: { maxAttempts: 1 },
        async handle(_payload, ctx) {
          await ctx.step('a', () => 1);
          await ctx.step('a', () => 2);
        },
      });
      const { chokaq } = await engineOnClock({ jobs: [job, twice] });
      const changed = await chokaq.enqueue(job, {});
      const repeated = await chokaq.enqueue(twice, {});
      const dead = await waitForJob(chokaq, changed.id, 'dead', { timeoutMs: 10_000 });
      expect(dead.errorDetails).toContain('CHOKAQ_STEP_CHANGED');
      const deadTwice = await waitForJob(chokaq, repeated.id, 'dead', { timeoutMs: 10_000 });
      expect(deadTwice.errorDetails).toContain('CHOKAQ_STEP_REPEATED');
    });
  });
}
