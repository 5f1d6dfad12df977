import { trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { endRunSpan, RunTracer, withSpan } from '../../src/observability/tracing/spans.js';

const JOB = {
  id: 'job-1',
  queue: 'emails',
  type: 'email.send',
  attempts: 1,
  runAt: new Date(1_000),
  traceParent: null,
};
const STARTED_MS = 1_003;

function recordingProvider(): { provider: BasicTracerProvider; exporter: InMemorySpanExporter } {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { provider, exporter };
}

describe('run tracer', () => {
  afterEach(() => {
    trace.disable();
  });

  it('makes no span while no tracer provider is registered; the run goes on as without one', () => {
    const tracer = new RunTracer(undefined, '1.0.0');
    const span = tracer.start(JOB, STARTED_MS);
    expect(span).toBeUndefined();
    expect(withSpan(span, () => 42)).toBe(42);
    expect(() => endRunSpan(span, 'succeeded')).not.toThrow();
  });

  it('traces every run once a global provider is registered, even after it was made, until it is removed', () => {
    const tracer = new RunTracer(undefined, '1.0.0');
    expect(tracer.start(JOB, STARTED_MS)).toBeUndefined();
    const { provider, exporter } = recordingProvider();
    trace.setGlobalTracerProvider(provider);
    const span = tracer.start(JOB, STARTED_MS);
    expect(span?.isRecording()).toBe(true);
    endRunSpan(span, 'succeeded');
    expect(
      exporter
        .getFinishedSpans()
        .map((s) => [
          s.name,
          s.attributes['chokaq.job.queue_wait_ms'],
          s.attributes['chokaq.job.outcome'],
        ]),
    ).toEqual([['process emails', 3, 'succeeded']]);
    trace.disable();
    expect(tracer.start(JOB, STARTED_MS)).toBeUndefined();
  });

  it('always traces to a provider it was given', () => {
    const { provider, exporter } = recordingProvider();
    const span = new RunTracer(provider, '1.0.0').start(JOB, STARTED_MS);
    expect(span?.isRecording()).toBe(true);
    endRunSpan(span, 'dead', 'Error: boom\n    at handler');
    const [finished] = exporter.getFinishedSpans();
    expect(finished?.status).toEqual({ code: 2, message: 'Error: boom' });
  });
});
