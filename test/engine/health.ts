import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { defineJob } from '../../src/index.js';
import { JumpingClock } from '../helpers/jumping-clock.js';
import { waitFor } from '../helpers/wait.js';
import { useEngines } from './engines.js';
import type { EngineStoreFactory } from './suite.js';
import { waitForJob } from '../../src/testing/index.js';

const slowJob = defineJob({
  type: 'health.work.v1',
  queue: 'health',
  handle: () => Promise.resolve(),
});

/** Busy-waits `ms` on the event loop, as a synchronous handler would. */
function blockEventLoop(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // spin
  }
}

/** Health checks of a running engine on every provider. */
export function describeHealth(name: string, factory: EngineStoreFactory): void {
  describe(`health on ${name}`, () => {
    const { engineOn } = useEngines(name, factory);

    const statuses = (report: { checks: { name: string; status: string }[] }) =>
      Object.fromEntries(report.checks.map((check) => [check.name, check.status]));

    it('is ready with every check ok once started; not live before start', async () => {
      const chokaq = engineOn(await factory.make(), { jobs: [slowJob] });
      expect((await chokaq.health.live()).status).toBe('unhealthy');
      await chokaq.start();
      const ready = await chokaq.health.ready();
      expect(ready.status).toBe('ok');
      expect(statuses(ready)).toEqual({
        chokaq_db: 'ok',
        chokaq_worker: 'ok',
        chokaq_queue_saturation: 'ok',
      });
      expect(typeof ready.checks[0]?.data.latencyMs).toBe('number');
      expect((await chokaq.health.live()).checks.map((c) => c.name)).toEqual(['chokaq_worker']);
    });

    it('turns degraded, then unhealthy, under a backed-up queue, and recovers when it drains', async () => {
      const clock = new JumpingClock();
      const storage = await factory.make({ clock });
      // The lag is store time, moved by jumps; to the loop probe a jump is a stall, which this
      // test is not about.
      const options = {
        clock,
        health: { lagDegraded: '10s', lagUnhealthy: '30s', stallTimeout: '1h' },
      } as const;
      // This process serves the queue but cannot run the type: its jobs stay due.
      const stuck = engineOn(storage, {
        jobs: [defineJob({ type: 'health.other.v1', queue: 'health', handle: () => undefined })],
        ...options,
      });
      await stuck.start();
      const producer = engineOn(storage, { jobs: [slowJob], worker: false, ...options });
      await producer.enqueue(slowJob, undefined);
      expect((await stuck.health.ready()).status).toBe('ok');
      clock.jump(11_000);
      const degraded = await waitFor(
        async () => {
          const report = await stuck.health.ready();
          return report.status === 'degraded' ? report : undefined;
        },
        { timeoutMs: 10_000, message: 'a degraded report' },
      );
      expect(statuses(degraded).chokaq_queue_saturation).toBe('degraded');
      expect(degraded.checks[2]?.data).toMatchObject({ worstQueue: 'health', worstDue: 1 });
      clock.jump(20_000);
      const unhealthy = await waitFor(
        async () => {
          const report = await stuck.health.ready();
          return report.status === 'unhealthy' ? report : undefined;
        },
        { timeoutMs: 10_000, message: 'an unhealthy report' },
      );
      expect(unhealthy.checks[2]?.message).toMatch(/^queue health: its oldest due job has waited/);
      // A paused queue's lag is on purpose.
      await stuck.queues.pause('health');
      expect((await stuck.health.ready()).status).toBe('ok');
      await stuck.queues.resume('health');
      expect((await stuck.health.ready()).status).toBe('unhealthy');
      // A worker that knows the type drains it: ready again.
      const worker = engineOn(storage, { jobs: [slowJob], ...options });
      await worker.start();
      await waitFor(async () => (await stuck.health.ready()).status === 'ok', {
        timeoutMs: 10_000,
        message: 'ready again',
      });
    });

    it('turns unhealthy after the event loop stalled, and live again once the stall is old', async () => {
      const clock = new JumpingClock();
      const chokaq = engineOn(await factory.make({ clock }), {
        jobs: [slowJob],
        clock,
        health: { stallTimeout: 400 },
      });
      await chokaq.start();
      expect((await chokaq.health.live()).status).toBe('ok');
      blockEventLoop(700);
      await waitFor(async () => (await chokaq.health.live()).status === 'unhealthy', {
        timeoutMs: 2000,
        message: 'an unhealthy live report after the stall',
      });
      const report = await chokaq.health.live();
      expect(report.checks[0]?.message).toMatch(/^the event loop stalled for \d+ ms lately$/);
      // The stall stays visible for twice the stall timeout, then the worker is live again.
      await clock.glide(800);
      await waitFor(async () => (await chokaq.health.live()).status === 'ok', {
        timeoutMs: 5000,
        message: 'live again',
      });
    });

    it('turns degraded past half of stallTimeout, unhealthy past it, and live again after', async () => {
      const clock = new JumpingClock();
      const chokaq = engineOn(await factory.make({ clock }), {
        jobs: [slowJob],
        clock,
        health: { stallTimeout: 4000 },
      });
      await chokaq.start();
      expect((await chokaq.health.live()).status).toBe('ok');
      const worker = async () => (await chokaq.health.live()).checks[0]!;
      // A stall of 3,000 ms: more than half of 4,000, less than all of it.
      clock.jump(3000);
      const degraded = await waitFor(
        async () => {
          const check = await worker();
          return check.status === 'ok' ? undefined : check;
        },
        { timeoutMs: 2000, message: 'the stall to be seen' },
      );
      expect(degraded.status).toBe('degraded');
      expect(degraded.message).toMatch(/^the event loop stalled for \d+ ms lately$/);
      expect(degraded.data.worstLoopDelayMs).toBeGreaterThan(2500);
      expect(degraded.data.worstLoopDelayMs).toBeLessThanOrEqual(4000);
      clock.jump(5000);
      await waitFor(async () => (await worker()).status === 'unhealthy', {
        timeoutMs: 2000,
        message: 'an unhealthy live report after the longer stall',
      });
      expect((await chokaq.health.ready()).status).toBe('unhealthy');
      // Stalls stay visible for twice stallTimeout (8 s of time passing without a stall; 4.5 s
      // left for the real time this takes on a loaded machine, while a window of one
      // stallTimeout would have closed), then the worker is live again.
      await clock.glide(3500);
      expect((await worker()).status).toBe('unhealthy');
      await clock.glide(5000);
      await waitFor(async () => (await worker()).status === 'ok', {
        timeoutMs: 2000,
        message: 'live again',
      });
    });

    it('is not ready while a claim hangs on the store, and ready again once it returns', async () => {
      const storage = await factory.make();
      let hang = false;
      let release: (() => void) | undefined;
      const claim = storage.jobs.claim.bind(storage.jobs);
      // While `hang`, a claim waits until the test releases it, then goes to the store.
      storage.jobs.claim = (request) =>
        hang
          ? new Promise((resolve, reject) => {
              release = () => void claim(request).then(resolve, reject);
            })
          : claim(request);
      const chokaq = engineOn(storage, { jobs: [slowJob], health: { stallTimeout: 300 } });
      await chokaq.start();
      hang = true;
      const { id } = await chokaq.enqueue(slowJob, undefined); // wakes the worker into a hung claim
      const report = await waitFor(
        async () => {
          const r = await chokaq.health.ready();
          return r.checks[1]?.status === 'unhealthy' ? r : undefined;
        },
        { timeoutMs: 5000, message: 'the hanging claim to be seen' },
      );
      expect(report.checks[1]?.message).toMatch(/^a claim has waited \d+ ms for the store$/);
      hang = false;
      expect(release).toBeDefined();
      release?.();
      await waitForJob(chokaq, id, 'succeeded', { timeoutMs: 5000 });
      const recovered = await waitFor(
        async () => {
          const r = await chokaq.health.ready();
          return r.status === 'ok' ? r : undefined;
        },
        { timeoutMs: 5000, message: 'ready again' },
      );
      expect(statuses(recovered).chokaq_worker).toBe('ok');
    });

    it('serves /live and /ready over HTTP: 200 when ok, 503 when unhealthy, 404 elsewhere', async () => {
      const chokaq = engineOn(await factory.make(), { jobs: [slowJob] });
      const server = createServer(chokaq.health.handler());
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      try {
        const notStarted = await fetch(`${base}/livez`);
        expect(notStarted.status).toBe(503);
        await chokaq.start();
        const ready = await fetch(`${base}/healthz/ready?verbose=1`);
        expect(ready.status).toBe(200);
        expect(ready.headers.get('content-type')).toBe('application/json');
        const body = (await ready.json()) as { status: string; checks: unknown[] };
        expect(body.status).toBe('ok');
        expect(body.checks).toHaveLength(3);
        expect((await fetch(`${base}/live`)).status).toBe(200);
        expect((await fetch(`${base}/metrics`)).status).toBe(404);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    });

    it('an enqueue-only process is ready whatever the backlog', async () => {
      const chokaq = engineOn(await factory.make(), {
        jobs: [slowJob],
        worker: false,
        health: { lagDegraded: 1, lagUnhealthy: 1 },
      });
      await chokaq.start();
      await chokaq.enqueue(slowJob, undefined);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const ready = await chokaq.health.ready();
      expect(statuses(ready)).toEqual({
        chokaq_db: 'ok',
        chokaq_worker: 'ok',
        chokaq_queue_saturation: 'ok',
      });
    });
  });
}
