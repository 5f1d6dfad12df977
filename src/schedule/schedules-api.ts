/**
 * `chokaq.schedules`: define schedules at run time (add, update, remove), pause and resume them,
 * trigger one now, and read them with their next fire times and last run. Every input is checked
 * before anything is written; operator actions go to the audit trail.
 */
import { ChokaQError } from '../errors.js';
import { parsePayload } from '../job/define-job.js';
import type { JobRegistry } from '../job/registry.js';
import { checkReason, type Auditor } from '../operator/audit.js';
import { checkActor } from '../operator/inputs.js';
import type { ChokaQEvents } from '../runtime/events.js';
import type { Store } from '../storage/store.js';
import { checkOptions, invalid } from '../util/check.js';
import type { Clock } from '../util/clock.js';
import type { Duration } from '../util/duration.js';
import {
  checkSchedule,
  checkScheduleName,
  SCHEDULE_KEYS,
  specFromJson,
  specToJson,
  type CheckedSchedule,
  type Schedule,
  type ScheduleSpec,
} from './definition.js';
import { scheduleInfo, type ScheduleInfo } from './info.js';
import { firedEvent, tickToFire, type LocalSchedule } from './tick-job.js';

/** Who acts on a schedule and why, for the audit trail. */
export interface ScheduleActorOptions {
  /** Recorded in the audit trail (1–100 characters). Default: `'operator'`. */
  actor?: string;
  /** Why (1–1000 characters). Default: none. */
  reason?: string;
}

/** A change to a schedule: any field but `name`; absent fields keep their value. */
export type SchedulePatch = Partial<Omit<Schedule, 'name'>>;

/** What {@link SchedulesApi.trigger} enqueued. */
export interface TriggerResult {
  /** The job's id. */
  jobId: string;
  /** The manual tick's time (the store's now). */
  tickAt: Date;
}

/** What a {@link SchedulesApi} works with. */
export interface SchedulesApiOptions {
  store: Store;
  /** Opens the store once. */
  open: () => Promise<void>;
  registry: JobRegistry;
  maxPayloadBytes: number;
  clock: Clock;
  /** This process's schedules with their payload functions (shared with the scheduler). */
  local: Map<string, LocalSchedule>;
  auditor: Auditor;
  /** Where `schedule:fired` goes. */
  events: ChokaQEvents;
  /** Tells this process's scheduler that a schedule changed. */
  changed: () => void;
}

const ACTOR_KEYS = ['actor', 'reason'] as const;
const PATCH_KEYS = SCHEDULE_KEYS.filter((key) => key !== 'name');

/** The operator calls on schedules. */
export class SchedulesApi {
  constructor(private readonly options: SchedulesApiOptions) {}

  /**
   * Saves the schedules declared in `new ChokaQ({ schedules })` (at `start()`): each is created,
   * or its stored definition replaced; pause state, cursor and history stay.
   * @throws ChokaQError `CHOKAQ_PAYLOAD_INVALID` when a payload fails its job's schema.
   */
  async declare(schedules: readonly CheckedSchedule[]): Promise<void> {
    for (const [i, checked] of schedules.entries()) {
      await this.save(checked, `schedules[${i}]`);
    }
  }

  /**
   * Creates a schedule, or replaces the definition of the one with its name (keeping its pause
   * state and history). Resolves to the schedule as stored.
   * @throws ChokaQError naming the field (see `Schedule`); nothing is written.
   */
  async add(schedule: Schedule, options?: ScheduleActorOptions): Promise<ScheduleInfo> {
    const checked = checkSchedule(
      schedule,
      'schedule',
      this.options.maxPayloadBytes,
      this.options.clock.now(),
    );
    const who = checkActorOptions(options);
    await this.save(checked, 'schedule');
    await this.audit(who, 'schedule-add', checked.spec.name, {
      definition: specToJson(checked.spec),
    });
    return this.mustGet(checked.spec.name);
  }

  /**
   * Changes fields of a schedule (a new `cron` or `every` replaces the other). A schedule whose
   * payload is a function can be updated only where that function is defined, or with a new
   * `payload`.
   * @throws ChokaQError `CHOKAQ_SCHEDULE_NOT_FOUND`, or naming the invalid field.
   */
  async update(
    name: string,
    patch: SchedulePatch,
    options?: ScheduleActorOptions,
  ): Promise<ScheduleInfo> {
    checkScheduleName(name, 'name');
    const changes = checkOptions(patch, 'patch', PATCH_KEYS, 'CHOKAQ_INVALID_SCHEDULE');
    const who = checkActorOptions(options);
    await this.options.open();
    const row = await this.options.store.schedules.get(name);
    if (row === null) throw notFound(name);
    const base = this.asSchedule(specFromJson(name, row.definition));
    if (changes.cron !== undefined || changes.every !== undefined) {
      delete base.cron;
      delete base.every;
    }
    if (base.payload === undefined && changes.payload === undefined) {
      throw new ChokaQError(
        'CHOKAQ_INVALID_SCHEDULE',
        `schedule ${name} makes its payload with a function this process does not define; give patch.payload`,
        { field: 'patch.payload' },
      );
    }
    const checked = checkSchedule(
      { ...base, ...changes, name },
      'patch',
      this.options.maxPayloadBytes,
      this.options.clock.now(),
    );
    await this.save(checked, 'patch');
    await this.audit(who, 'schedule-update', name, { fields: Object.keys(changes) });
    return this.mustGet(name);
  }

  /**
   * Pauses a schedule in every process: no tick fires until it is resumed.
   * @throws ChokaQError `CHOKAQ_SCHEDULE_NOT_FOUND`.
   */
  pause(name: string, options?: ScheduleActorOptions): Promise<ScheduleInfo> {
    return this.setPaused(name, true, options);
  }

  /**
   * Resumes a paused schedule; ticks that fell in the pause never fire.
   * @throws ChokaQError `CHOKAQ_SCHEDULE_NOT_FOUND`.
   */
  resume(name: string, options?: ScheduleActorOptions): Promise<ScheduleInfo> {
    return this.setPaused(name, false, options);
  }

  /**
   * Deletes a schedule and its tick history in every process (a schedule still declared in
   * `new ChokaQ({ schedules })` comes back at that process's next start). Resolves `false` when
   * there was none.
   */
  async remove(name: string, options?: ScheduleActorOptions): Promise<boolean> {
    checkScheduleName(name, 'name');
    const who = checkActorOptions(options);
    await this.options.open();
    const removed = await this.options.store.schedules.remove(name);
    this.options.local.delete(name);
    if (removed) await this.audit(who, 'schedule-remove', name, { removed });
    return removed;
  }

  /**
   * Enqueues the schedule's job now, as a manual tick at the store's now, whether the schedule
   * is paused or its previous run is still going; the schedule's own ticks are not moved.
   * @throws ChokaQError `CHOKAQ_SCHEDULE_NOT_FOUND`; `CHOKAQ_INVALID_SCHEDULE` when its payload
   *   function is not defined in this process or fails.
   */
  async trigger(name: string, options?: ScheduleActorOptions): Promise<TriggerResult> {
    checkScheduleName(name, 'name');
    const who = checkActorOptions(options);
    const { store, clock } = this.options;
    await this.options.open();
    const row = await store.schedules.get(name);
    if (row === null) throw notFound(name);
    const spec = specFromJson(name, row.definition);
    const tickAt = await store.cluster.now();
    const tick = await tickToFire(spec, this.options.local.get(name), tickAt, true, {
      maxPayloadBytes: this.options.maxPayloadBytes,
      nowMs: clock.now(),
      random: Math.random,
    });
    if (tick.job === null) {
      throw new ChokaQError(
        'CHOKAQ_INVALID_SCHEDULE',
        `schedule ${name} could not make its job: ${tick.error ?? 'unknown error'}`,
        { field: 'name' },
      );
    }
    const [result] = await store.schedules.fire({
      name,
      ticks: [tick],
      advanceTo: null,
      overlap: 'allow',
    });
    if (result === 'gone') throw notFound(name);
    if (result !== 'enqueued') throw new Error(`trigger of ${name} was ${String(result)}`);
    this.options.events.emit('schedule:fired', firedEvent(name, tick, 'enqueued'));
    const fired = { jobId: tick.job.id, tickAt };
    await this.audit(who, 'schedule-trigger', name, fired);
    return fired;
  }

  /** Every schedule, by name, with next fire times and last run. */
  async list(): Promise<ScheduleInfo[]> {
    await this.options.open();
    const { store } = this.options;
    const rows = await store.schedules.list();
    const now = await store.cluster.now();
    return Promise.all(
      rows.map(async (row) => scheduleInfo(row, now, await this.lastJob(row.lastTick?.jobId))),
    );
  }

  /** One schedule, or `null` when there is none with this name. */
  async get(name: string): Promise<ScheduleInfo | null> {
    checkScheduleName(name, 'name');
    await this.options.open();
    const { store } = this.options;
    const row = await store.schedules.get(name);
    if (row === null) return null;
    return scheduleInfo(row, await store.cluster.now(), await this.lastJob(row.lastTick?.jobId));
  }

  private async setPaused(
    name: string,
    paused: boolean,
    options: ScheduleActorOptions | undefined,
  ): Promise<ScheduleInfo> {
    checkScheduleName(name, 'name');
    const who = checkActorOptions(options);
    await this.options.open();
    const row = await this.options.store.schedules.setPaused(name, paused);
    if (row === null) throw notFound(name);
    await this.audit(who, paused ? 'schedule-pause' : 'schedule-resume', name, { paused });
    return this.mustGet(name);
  }

  /** Stores a checked schedule after its payload passed the job's schema, and remembers it here. */
  private async save(checked: CheckedSchedule, field: string): Promise<void> {
    const { spec, definition, payloadFn } = checked;
    const found = definition ?? this.options.registry.find(spec.type);
    if (found !== undefined && spec.payload !== null) {
      await parsePayload(found, JSON.parse(spec.payload), `${field}.payload`);
    }
    await this.options.open();
    await this.options.store.schedules.save(spec.name, specToJson(spec));
    this.options.local.set(spec.name, { payloadFn, definition: found });
    this.options.changed();
  }

  /** A stored spec as a {@link Schedule} to patch (a function payload only when defined here). */
  private asSchedule(spec: ScheduleSpec): Schedule {
    const local = this.options.local.get(spec.name);
    const ms = (value: number): Duration => value;
    return {
      name: spec.name,
      job: local?.definition ?? spec.type,
      ...(spec.cron === null ? { every: ms(spec.everyMs ?? 1000) } : { cron: spec.cron }),
      timeZone: spec.timeZone,
      ...(spec.payload !== null
        ? { payload: JSON.parse(spec.payload) as NonNullable<Schedule['payload']> | null }
        : local?.payloadFn !== undefined
          ? { payload: local.payloadFn }
          : {}),
      queue: spec.queue,
      priority: spec.priority,
      tags: spec.tags,
      missed: spec.missed,
      missedAfter: spec.missedAfterMs,
      catchUpLimit: spec.catchUpLimit,
      overlap: spec.overlap,
      jitter: spec.jitterMs,
      ...(spec.endAt === null ? {} : { endAt: spec.endAt }),
    };
  }

  private async mustGet(name: string): Promise<ScheduleInfo> {
    const info = await this.get(name);
    if (info === null) throw notFound(name);
    return info;
  }

  private async lastJob(jobId: string | null | undefined) {
    return jobId === null || jobId === undefined ? null : this.options.store.operator.getJob(jobId);
  }

  private async audit(
    who: { actor: string; reason: string | null },
    action: string,
    name: string,
    outcome: unknown,
  ): Promise<void> {
    await this.options.auditor.record({ ...who, action, target: { schedule: name }, outcome });
  }
}

/** The error for an unknown schedule name. */
function notFound(name: string): ChokaQError {
  return new ChokaQError(
    'CHOKAQ_SCHEDULE_NOT_FOUND',
    `no schedule is named ${JSON.stringify(name)}`,
    {
      field: 'name',
    },
  );
}

/** Checks `{ actor, reason }`. */
function checkActorOptions(options: ScheduleActorOptions | undefined): {
  actor: string;
  reason: string | null;
} {
  const o = checkOptions(options, 'options', ACTOR_KEYS, 'CHOKAQ_INVALID_ARGUMENT');
  if (o.reason !== undefined && typeof o.reason !== 'string') {
    throw invalid('CHOKAQ_INVALID_ARGUMENT', 'options.reason', 'a string', o.reason);
  }
  return { actor: checkActor(o.actor), reason: checkReason(o.reason, 'options.reason') };
}
