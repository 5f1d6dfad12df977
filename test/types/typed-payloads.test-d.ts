/**
 * Type tests of typed payloads, checked by `tsc --noEmit` in `npm run lint` (vitest does not run
 * this file): what `defineJob`'s overloads infer, what `PayloadOf` gives `enqueue` and
 * `enqueueMany`, and what a handler receives. A wrong type in an assertion, or a line under
 * `@ts-expect-error` that compiles, fails the build.
 */
import { expectTypeOf } from 'vitest';
import { z } from 'zod';
import {
  defineJob,
  type BatchJob,
  type ChokaQ,
  type JobDefinition,
  type PayloadOf,
} from '../../src/index.js';

declare const chokaq: ChokaQ;

// A named payload type, no schema: the handler and enqueue take that type.
const mail = defineJob<{ to: string; cc?: string[] }>({
  type: 'mail.send.v1',
  handle: (payload) => {
    expectTypeOf(payload).toEqualTypeOf<{ to: string; cc?: string[] }>();
  },
});
expectTypeOf(mail).toEqualTypeOf<
  JobDefinition<{ to: string; cc?: string[] }, { to: string; cc?: string[] }>
>();
expectTypeOf<PayloadOf<typeof mail>>().toEqualTypeOf<{ to: string; cc?: string[] }>();
void chokaq.enqueue(mail, { to: 'a@example.com' });
// @ts-expect-error: `to` is required
void chokaq.enqueue(mail, { cc: ['b@example.com'] });
// @ts-expect-error: `to` is a string
void chokaq.enqueue(mail, { to: 42 });
void chokaq.enqueueMany(mail, [{ payload: { to: 'a@example.com' }, priority: 5 }]);
// @ts-expect-error: an item's payload is checked like a single enqueue's
void chokaq.enqueueMany(mail, [{ payload: { to: 1 } }]);

// A schema: enqueue takes the schema's input, the handler gets its output (defaults applied).
const report = defineJob({
  type: 'report.build.v1',
  payload: z.object({ day: z.string(), pages: z.number().default(1) }),
  handle: (payload) => {
    expectTypeOf(payload).toEqualTypeOf<{ day: string; pages: number }>();
  },
});
expectTypeOf<PayloadOf<typeof report>>().toEqualTypeOf<{ day: string; pages?: number }>();
void chokaq.enqueue(report, { day: '2026-12-06' });
// @ts-expect-error: `day` is required by the schema
void chokaq.enqueue(report, { pages: 2 });

// @ts-expect-error: the handler must take the schema's output
defineJob({
  type: 'report.wrong.v1',
  payload: z.object({ day: z.string() }),
  handle: (payload: { day: number }) => payload.day,
});

// No type and no schema: the payload is unknown, and so is what enqueue takes.
const raw = defineJob({
  type: 'raw.v1',
  handle: (payload) => {
    expectTypeOf(payload).toEqualTypeOf<unknown>();
  },
});
expectTypeOf(raw).toEqualTypeOf<JobDefinition<unknown, unknown>>();
expectTypeOf<PayloadOf<typeof raw>>().toEqualTypeOf<unknown>();

// A bare type key: any payload (the worker's definition checks it).
expectTypeOf<PayloadOf<'mail.send.v1'>>().toEqualTypeOf<unknown>();
void chokaq.enqueue('mail.send.v1', { anything: true });

// A batch handler: each job's payload is typed like a single handler's.
defineJob<{ n: number }>({
  type: 'count.v1',
  batchSize: 10,
  handleBatch: (jobs) => {
    expectTypeOf(jobs).toEqualTypeOf<readonly BatchJob<{ n: number }>[]>();
    return jobs.map(() => ({ status: 'fulfilled' as const, value: undefined }));
  },
});
