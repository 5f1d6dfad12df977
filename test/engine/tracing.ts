import { context, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, silentLogger, type ChokaQOptions } from '../../src/index.js';
import type { Store } from '../../src/storage/store.js';
import { waitFor } from '../helpers/wait.js';
import type { EngineStoreFactory } from './suite.js';

/** Runs spans through an in-memory exporter; each attempt's span links to the enqueue's. */
export function describeTracing(name: string, factory: EngineStoreFactory): void {
  describe(`tracing on ${name}`, () => {
    const engines: ChokaQ[] = [];
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const appTracer = provider.getTracer('app');
    const contextManager = new AsyncLocalStorageContextManager();
    let available = true;

    beforeAll(async () => {
      available = factory.available ? await factory.available() : true;
      context.setGlobalContextManager(contextManager.enable());
    });

    afterAll(() => {
      context.disable();
    });

    beforeEach((ctx) => {
      if (!available) ctx.skip(`${name} storage is not available`);
      exporter.reset();
    });

    afterEach(async () => {
      await Promise.all(engines.splice(0).map((engine) => engine.stop()));
    });

    async function started(storage: Store, options: Omit<ChokaQOptions, 'storage'>) {
      const chokaq = new ChokaQ({ storage, logger: silentLogger, pollInterval: 50, ...options });
      engines.push(chokaq);
      await chokaq.start();
      return chokaq;
    }

    it("runs each attempt in a consumer span linked to the enqueue's trace, the handler's spans inside it", async () => {
      let runs = 0;
      const job = defineJob({
        type: 'traced.job.v1',
        queue: 'traced',
        retry: { maxAttempts: 3, baseDelay: 1, jitter: 0 },
        handle: async () => {
          runs += 1;
          await appTracer.startActiveSpan('inside the handler', async (span) => {
            span.end();
            return Promise.resolve();
          });
          if (runs === 1) throw new Error('first attempt fails');
        },
      });
      const chokaq = await started(await factory.make(), {
        jobs: [job],
        telemetry: { tracerProvider: provider },
      });
      const request = appTracer.startSpan('http request');
      await context.with(trace.setSpan(context.active(), request), () =>
        chokaq.enqueue(job, undefined),
      );
      request.end();
      const finished = (): ReadableSpan[] => exporter.getFinishedSpans();
      await waitFor(() => finished().filter((s) => s.name === 'process traced').length === 2, {
        message: 'two run spans',
      });
      const runSpans = finished().filter((s) => s.name === 'process traced');
      for (const span of runSpans) {
        expect(span.kind).toBe(SpanKind.CONSUMER);
        expect(span.links.map((l) => [l.context.traceId, l.context.spanId])).toEqual([
          [request.spanContext().traceId, request.spanContext().spanId],
        ]);
        expect(span.attributes).toMatchObject({
          'messaging.system': 'chokaq',
          'messaging.destination.name': 'traced',
          'chokaq.job.type': 'traced.job.v1',
        });
        expect(span.attributes['chokaq.job.queue_wait_ms']).toEqual(expect.any(Number));
      }
      expect(
        runSpans.map((s) => [
          s.attributes['chokaq.job.attempt'],
          s.attributes['chokaq.job.outcome'],
        ]),
      ).toEqual([
        [1, 'retried'],
        [2, 'succeeded'],
      ]);
      expect(runSpans[0]?.status.message).toBe('Error: first attempt fails');
      const inside = finished().filter((s) => s.name === 'inside the handler');
      expect(inside.map((s) => s.parentSpanContext?.spanId).sort()).toEqual(
        runSpans.map((s) => s.spanContext().spanId).sort(),
      );
    });

    it('runs a job enqueued outside any trace in a span without links', async () => {
      const job = defineJob({
        type: 'untraced.job.v1',
        queue: 'untraced',
        handle: () => undefined,
      });
      const chokaq = await started(await factory.make(), {
        jobs: [job],
        telemetry: { tracerProvider: provider },
      });
      await chokaq.enqueue(job, undefined);
      await waitFor(() => exporter.getFinishedSpans().some((s) => s.name === 'process untraced'), {
        message: 'the run span',
      });
      const [span] = exporter.getFinishedSpans().filter((s) => s.name === 'process untraced');
      expect(span?.links).toEqual([]);
      expect(span?.attributes['chokaq.job.outcome']).toBe('succeeded');
    });

    it('traces runs to a global provider from when the app registers it, started before or after', async () => {
      const job = defineJob({
        type: 'global.job.v1',
        queue: 'global',
        handle: (payload: { n: number }) => payload.n,
      });
      const chokaq = await started(await factory.make(), { jobs: [job] });
      const runSpans = (): ReadableSpan[] =>
        exporter.getFinishedSpans().filter((s) => s.name === 'process global');
      try {
        const before = await chokaq.enqueue(job, { n: 1 });
        await waitFor(async () => (await chokaq.jobs.get(before.id))?.state === 'succeeded', {
          message: 'the run before the provider',
        });
        trace.setGlobalTracerProvider(provider);
        const after = await chokaq.enqueue(job, { n: 2 });
        await waitFor(() => runSpans().length === 1, { message: 'the run span' });
        expect(runSpans().map((s) => s.attributes['messaging.message.id'])).toEqual([after.id]);
      } finally {
        trace.disable();
      }
    });
  });
}
