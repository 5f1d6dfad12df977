/**
 * Traces through `@opentelemetry/api` only, so they cost next to nothing without an SDK: the
 * enqueuing code's span context is kept with the job as a W3C `traceparent`, and every run of
 * the job is a span of its own (kind consumer, named `process <queue>`) linked to it — a link,
 * not a parent, because one enqueue can lead to many runs, long after its trace ended.
 */
import {
  context,
  INVALID_TRACEID,
  ProxyTracerProvider,
  SpanKind,
  SpanStatusCode,
  trace,
  type Link,
  type Span,
  type SpanContext,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';

/** The tracer's name. */
export const TRACER_NAME = 'chokaq';

/** The W3C trace context header value (version 00). */
const TRACE_PARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The tracer of ChokaQ on `provider`, or on the global provider. */
function chokaqTracer(provider: TracerProvider | undefined, version: string): Tracer {
  return (provider ?? trace.getTracerProvider()).getTracer(TRACER_NAME, version);
}

/** What the API's global proxy delegates to while no tracer provider is registered. */
const UNREGISTERED: TracerProvider = new ProxyTracerProvider().getDelegate();

/**
 * Whether spans on the global provider would go anywhere: `false` only while it is this API
 * copy's proxy with no provider registered behind it (another copy's provider counts as one).
 */
function globalProviderRegistered(): boolean {
  const global = trace.getTracerProvider();
  return !(global instanceof ProxyTracerProvider) || global.getDelegate() !== UNREGISTERED;
}

/**
 * Starts the spans of runs. With a `provider` (the `telemetry.tracerProvider` option) every run
 * has a span; without one, every run while a provider is registered globally, whenever the app
 * registered it (before or after ChokaQ started). While none is, a run makes no span at all: the
 * API's would record nothing, yet cost each run its attributes, links and span objects.
 */
export class RunTracer {
  private readonly tracer: Tracer;
  private readonly registered: () => boolean;

  /** `version`: the package's, reported as the tracer's version. */
  constructor(provider: TracerProvider | undefined, version: string) {
    this.tracer = chokaqTracer(provider, version);
    this.registered = provider === undefined ? globalProviderRegistered : () => true;
  }

  /**
   * The span of `job`'s run that started at `startedMs` (epoch ms), linked to the enqueue's span
   * context when the job has one; `undefined` when no span would record it.
   */
  start(job: RunSpanJob, startedMs: number): Span | undefined {
    return this.registered() ? startRunSpan(this.tracer, job, startedMs) : undefined;
  }
}

/** The active span's context as a W3C `traceparent`, or `null` without an active, valid span. */
export function activeTraceParent(): string | null {
  const span = trace.getSpanContext(context.active());
  if (span === undefined || !trace.isSpanContextValid(span)) return null;
  const flags = (span.traceFlags & 0xff).toString(16).padStart(2, '0');
  return `00-${span.traceId}-${span.spanId}-${flags}`;
}

/** A stored `traceparent` as a remote span context; `undefined` when absent or malformed. */
export function spanContextOf(traceParent: string | null): SpanContext | undefined {
  const match = traceParent === null ? null : TRACE_PARENT.exec(traceParent);
  if (!match) return undefined;
  const [, traceId, spanId, flags] = match;
  const parsed: SpanContext = {
    traceId: traceId!,
    spanId: spanId!,
    traceFlags: Number.parseInt(flags!, 16),
    isRemote: true,
  };
  return trace.isSpanContextValid(parsed) ? parsed : undefined;
}

/** The fields of a started job that its run span records. */
export interface RunSpanJob {
  id: string;
  queue: string;
  type: string;
  /** The attempt that runs. */
  attempts: number;
  /** When the job was due. */
  runAt: Date;
  /** The enqueue's W3C trace context, or `null`. */
  traceParent: string | null;
}

/** Starts the span of a run that started at `startedMs` (see {@link RunTracer.start}). */
function startRunSpan(tracer: Tracer, job: RunSpanJob, startedMs: number): Span {
  const enqueued = spanContextOf(job.traceParent);
  const links: Link[] = enqueued ? [{ context: enqueued }] : [];
  return tracer.startSpan(`process ${job.queue}`, {
    kind: SpanKind.CONSUMER,
    links,
    attributes: {
      'messaging.system': 'chokaq',
      'messaging.operation.type': 'process',
      'messaging.destination.name': job.queue,
      'messaging.message.id': job.id,
      'chokaq.job.type': job.type,
      'chokaq.job.attempt': job.attempts,
      // From when the job was due to this start.
      'chokaq.job.queue_wait_ms': Math.max(0, startedMs - job.runAt.getTime()),
    },
  });
}

/**
 * Runs `fn` with `span` as the active span, so the handler's own spans are its children. Without
 * a span, or with one without a valid context (nothing to link to), `fn` runs in the current
 * context: no context object made per run.
 */
export function withSpan<T>(span: Span | undefined, fn: () => T): T {
  if (span === undefined || span.spanContext().traceId === INVALID_TRACEID) return fn();
  return context.with(trace.setSpan(context.active(), span), fn);
}

/** Ends a run span, if the run has one, with its outcome (`succeeded`, `retried`, `dead`, `aborted: …`). */
export function endRunSpan(span: Span | undefined, outcome: string, error?: string): void {
  if (span === undefined) return;
  span.setAttribute('chokaq.job.outcome', outcome);
  if (error !== undefined)
    span.setStatus({ code: SpanStatusCode.ERROR, message: error.split('\n', 1)[0] ?? '' });
  span.end();
}
