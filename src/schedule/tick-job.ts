/**
 * The job of one tick: its payload (the static one, or the payload function's value for the
 * tick, checked against the job's schema) and its envelope from the schedule. A failure becomes
 * a `failed` tick with the error text, never a throw: one bad tick must not stop the others.
 */
import { parsePayload } from '../job/define-job.js';
import { serializePayload } from '../job/envelope.js';
import type { AnyJobDefinition } from '../job/registry.js';
import type { ChokaQEventMap } from '../runtime/events.js';
import { OVERLAP_SKIPPED, type TickOutcome, type TickToFire } from '../storage/schedules.js';
import { uuidv7 } from '../util/uuid.js';
import { callPayload, type PayloadFunction, type ScheduleSpec } from './definition.js';

/** What this process knows of a schedule beyond its stored spec. */
export interface LocalSchedule {
  /** Makes each tick's payload (schedules with a function payload). */
  payloadFn: PayloadFunction | undefined;
  /** The job definition, whose schema checks a function payload. */
  definition: AnyJobDefinition | undefined;
}

/** What {@link tickToFire} needs besides the schedule and the tick. */
export interface TickJobContext {
  maxPayloadBytes: number;
  /** Now in ms (the job id's time). */
  nowMs: number;
  /** A number in [0, 1) for the jitter. */
  random: () => number;
}

/** The `createdBy` of a schedule's job: `schedule:<name>@<tick time, ISO 8601>`. */
export function scheduleOrigin(name: string, tick: Date): string {
  return `schedule:${name}@${tick.toISOString()}`;
}

/** The tick to fire for `tick` of `spec`, with its job or the reason it has none. */
export async function tickToFire(
  spec: ScheduleSpec,
  local: LocalSchedule | undefined,
  tick: Date,
  manual: boolean,
  context: TickJobContext,
): Promise<TickToFire> {
  try {
    let payload = spec.payload;
    if (payload === null) {
      if (local?.payloadFn === undefined) throw new Error('no payload function in this process');
      const value = callPayload(local.payloadFn, tick, 'payload');
      if (local.definition !== undefined) await parsePayload(local.definition, value);
      payload = serializePayload(value, context.maxPayloadBytes);
    }
    return {
      tickAt: tick,
      manual,
      job: {
        id: uuidv7(context.nowMs),
        queue: spec.queue,
        type: spec.type,
        payload,
        priority: spec.priority,
        delayMs: spec.jitterMs > 0 ? Math.floor(context.random() * spec.jitterMs) : 0,
        idempotencyKey: null,
        tags: spec.tags,
        createdBy: scheduleOrigin(spec.name, tick),
        traceParent: null,
      },
    };
  } catch (error) {
    return {
      tickAt: tick,
      manual,
      job: null,
      error: error instanceof Error ? error.message : String(error),
    };
  }
}

/** The `schedule:fired` event of a tick this process wrote with `outcome`. */
export function firedEvent(
  schedule: string,
  tick: TickToFire,
  outcome: TickOutcome,
): ChokaQEventMap['schedule:fired'] {
  return {
    schedule,
    tickAt: tick.tickAt,
    manual: tick.manual,
    outcome,
    jobId: outcome === 'enqueued' ? (tick.job?.id ?? null) : null,
    error:
      outcome === 'enqueued'
        ? null
        : outcome === 'skipped'
          ? OVERLAP_SKIPPED
          : (tick.error ?? null),
  };
}
