import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ChokaQ, defineJob, memory, silentLogger } from '../../src/index.js';
import { MAX_ENQUEUE_ITEMS } from '../../src/enqueue/options.js';
import { BatchCollector } from '../../src/enqueue/batch-builder.js';

const part = defineJob({
  type: 'bt.unit.part.v1',
  payload: z.object({ n: z.number() }),
  handle: () => undefined,
});
const report = defineJob({
  type: 'bt.unit.report.v1',
  payload: z.object({ label: z.string() }),
  handle: () => undefined,
});

/** A ChokaQ on a memory store that runs nothing, and a count of every row it holds. */
function engine(): { chokaq: ChokaQ; rows: () => Promise<number> } {
  const storage = memory();
  const chokaq = new ChokaQ({ storage, jobs: [part, report], logger: silentLogger, worker: false });
  const rows = async (): Promise<number> =>
    (await storage.operator.listHot({ limit: 1000 })).length +
    (await storage.operator.listArchive({ limit: 1000 })).length +
    (await storage.operator.listDead({ limit: 1000 })).length;
  return { chokaq, rows };
}

describe('enqueueBatch input', () => {
  it("refuses a builder's options that are no object or unknown, naming the field", () => {
    const batch = new BatchCollector();
    expect(() => batch.add(part, { n: 1 }, 'soon' as never)).toThrow(
      expect.objectContaining({ code: 'CHOKAQ_INVALID_ARGUMENT', field: 'batch[0]' }),
    );
    expect(() => batch.add(part, { n: 1 }, { client: {} } as never)).toThrow(
      expect.objectContaining({ code: 'CHOKAQ_UNKNOWN_OPTION', field: 'batch[0].client' }),
    );
    expect(() =>
      batch.onComplete(report, { label: 'x' }, { idempotencyKey: 'k' } as never),
    ).toThrow(
      expect.objectContaining({
        code: 'CHOKAQ_UNKNOWN_OPTION',
        field: 'batch.onComplete.idempotencyKey',
      }),
    );
    batch.onDeath(report, { label: 'x' });
    expect(() => batch.onDeath(report, { label: 'y' })).toThrow(
      expect.objectContaining({ code: 'CHOKAQ_INVALID_ARGUMENT', field: 'batch.onDeath' }),
    );
    // A given id is kept; the others are new UUIDv7s.
    expect(batch.add(part, { n: 2 }, { id: 'bt-given' })).toBe('bt-given');
    expect(batch.onSuccess(report, { label: 'z' })).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('checks payloads against their schemas, a callback included, writing nothing', async () => {
    const { chokaq, rows } = engine();
    await expect(
      chokaq.enqueueBatch((batch) => {
        batch.add(part, { n: 1 });
        batch.add(part, { n: 'two' } as never);
      }),
    ).rejects.toMatchObject({ code: 'CHOKAQ_PAYLOAD_INVALID', field: 'batch[1].payload' });
    await expect(
      chokaq.enqueueBatch((batch) => {
        batch.add(part, { n: 1 });
        batch.onSuccess(report, { label: 3 } as never);
      }),
    ).rejects.toMatchObject({ code: 'CHOKAQ_PAYLOAD_INVALID', field: 'batch.onSuccess.payload' });
    await expect(
      chokaq.enqueueBatch((batch) => {
        batch.add(part, { n: 1 }, { delay: 'soon' as never });
      }),
    ).rejects.toMatchObject({ code: 'CHOKAQ_INVALID_DURATION' });
    await expect(
      chokaq.enqueueBatch((batch) => {
        batch.add(part, { n: 1 }, { dependsOn: ['bt-nobody'] });
      }),
    ).rejects.toMatchObject({ code: 'CHOKAQ_UNKNOWN_DEPENDENCY' });
    await expect(
      chokaq.enqueueBatch((batch) => {
        batch.add(part, { n: 1 }, { id: 'bt-a', dependsOn: ['bt-b'] });
        batch.add(part, { n: 2 }, { id: 'bt-b', dependsOn: ['bt-a'] });
      }),
    ).rejects.toMatchObject({ code: 'CHOKAQ_DEPENDENCY_CYCLE' });
    expect(await rows()).toBe(0);
    await chokaq.stop();
  });

  it(`takes at most ${MAX_ENQUEUE_ITEMS} members, naming the field`, async () => {
    const { chokaq, rows } = engine();
    await expect(
      chokaq.enqueueBatch((batch) => {
        for (let n = 0; n <= MAX_ENQUEUE_ITEMS; n++) batch.add(part, { n });
      }),
    ).rejects.toMatchObject({ code: 'CHOKAQ_INVALID_ARGUMENT', field: 'batch' });
    expect(await rows()).toBe(0);
    await chokaq.stop();
  });

  it('resolves to the batch id, the members in order and the callbacks by kind', async () => {
    const { chokaq } = engine();
    let ids: string[] = [];
    let success = '';
    const result = await chokaq.enqueueBatch((batch) => {
      ids = [1, 2, 3].map((n) => batch.add(part, { n }));
      success = batch.onSuccess(report, { label: 'ok' });
    });
    expect(result.jobs).toEqual(ids.map((id) => ({ id, created: true })));
    expect(result.callbacks).toEqual({ success });
    expect(await chokaq.batches.get(result.id)).toMatchObject({ total: 3, pending: 3 });
    await chokaq.stop();
  });
});
