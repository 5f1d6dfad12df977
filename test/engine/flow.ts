/**
 * Flow control as operators see it, on every provider: `chokaq.flow.keys()` (keys in use, their
 * limits, running and pending jobs), `chokaq.flow.buckets()` (rate buckets with their throttled
 * counts), the same in `chokaq.status()` and in the text of `chokaq status`; bad arguments are
 * coded errors.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { statusText } from '../../src/cli/commands/status.js';
import { ChokaQ, defineJob, silentLogger } from '../../src/index.js';
import { waitFor } from '../helpers/wait.js';
import type { EngineStoreFactory } from './suite.js';
import { failure } from '../helpers/failure.js';

/** Registers the flow-visibility tests of one provider. */
export function describeFlow(name: string, factory: EngineStoreFactory): void {
  describe(`flow control visible on ${name}`, () => {
    const engines: ChokaQ[] = [];
    let available = true;
    let release: () => void = () => undefined;

    beforeAll(async () => {
      available = factory.available ? await factory.available() : true;
    });

    beforeEach((ctx) => {
      if (!available) ctx.skip(`${name} storage is not available`);
    });

    afterEach(async () => {
      release();
      await Promise.all(engines.splice(0).map((engine) => engine.stop()));
    });

    it('lists the keys in use, the rate buckets, and shows both in the status', async () => {
      const held = new Promise<void>((resolve) => (release = resolve));
      const tenant = defineJob<{ tenant: string }>({
        type: 'flowvis.tenant.v1',
        queue: 'flowvis',
        concurrencyKey: (p) => p.tenant,
        concurrencyLimit: 2,
        handle: () => held,
      });
      const rated = defineJob({
        type: 'flowvis.rated.v1',
        queue: 'flowvis.rated',
        rateLimit: { limit: 1, per: '1h' },
        handle: () => undefined,
      });
      const chokaq = new ChokaQ({
        storage: await factory.make(),
        jobs: [tenant, rated],
        logger: silentLogger,
        pollInterval: 50,
        concurrency: 8,
      });
      engines.push(chokaq);
      await chokaq.start();
      await chokaq.enqueueMany(tenant, [
        { payload: { tenant: 'acme' } },
        { payload: { tenant: 'acme' } },
        { payload: { tenant: 'acme' } },
        { payload: { tenant: 'beta' } },
      ]);
      await chokaq.enqueueMany(rated, [{ payload: undefined }, { payload: undefined }]);
      const keys = await waitFor(
        async () => {
          const k = await chokaq.flow.keys();
          return k.reduce((n, usage) => n + usage.running, 0) === 3 ? k : undefined;
        },
        { timeoutMs: 10_000, message: 'three keyed runs' },
      );
      expect(keys).toEqual([
        { queue: 'flowvis', key: 'acme', limit: 2, running: 2, pending: 1 },
        { queue: 'flowvis', key: 'beta', limit: 2, running: 1, pending: 0 },
      ]);
      expect(await chokaq.flow.keys({ queue: 'other' })).toEqual([]);
      const [bucket] = await waitFor(
        async () => {
          const b = await chokaq.flow.buckets();
          return (b[0]?.throttledTotal ?? 0) > 0 ? b : undefined;
        },
        { timeoutMs: 10_000, message: 'a throttled draw' },
      );
      expect(bucket).toMatchObject({ name: 'flowvis.rated.v1', limit: 1, perMs: 3_600_000 });
      expect(bucket?.grantedTotal).toBe(1);

      const report = await chokaq.status();
      expect(report.keys.map((k) => k.key)).toEqual(['acme', 'beta']);
      expect(report.rateBuckets.map((b) => b.name)).toEqual(['flowvis.rated.v1']);
      const text = statusText(report, 'health: ok\n');
      expect(text).toMatch(/\nconcurrency keys\nQUEUE +KEY +RUNNING +PENDING\n/);
      expect(text).toMatch(/\nflowvis +acme +2\/2 +1\n/);
      expect(text).toMatch(/\nflowvis\.rated\.v1 +1\/1h 00m +\S+ +- +1 +\d+\n/);
    });

    it('rejects bad arguments with coded errors', async () => {
      const chokaq = new ChokaQ({
        storage: await factory.make(),
        logger: silentLogger,
        worker: false,
      });
      engines.push(chokaq);
      expect((await failure(() => chokaq.flow.keys({ limit: 0 }))).field).toBe('options.limit');
      expect((await failure(() => chokaq.flow.keys({ queue: 'no spaces' }))).code).toBe(
        'CHOKAQ_INVALID_QUEUE',
      );
      const unknown = await failure(() => chokaq.flow.buckets({ limt: 5 } as never));
      expect([unknown.code, unknown.field]).toEqual(['CHOKAQ_UNKNOWN_OPTION', 'options.limt']);
    });
  });
}
