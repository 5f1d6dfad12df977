/**
 * Durable steps for the memory provider ({@link StepStore}), over the store's tables, as
 * src/storage/sql/steps.ts does them. Every operation is atomic, so a send and a wait can never
 * miss each other.
 *
 * @internal Reach it through `memory().steps`.
 */
import { ChokaQError } from '../../errors.js';
import { appendHistory, runEntry } from '../history.js';
import type { Lease } from '../job-store.js';
import type { HotJob } from '../model.js';
import {
  NO_EVENT_RESULT,
  receivedResult,
  stepChanged,
  suspendNote,
  type EventPurge,
  type SendEventResult,
  type SleepRequest,
  type StepKind,
  type StepRecord,
  type StepResult,
  type StepStore,
  type WaitOutcome,
  type WaitRequest,
} from '../step-store.js';
import { heldRow } from './claim.js';
import { toPending } from './settle.js';
import { atomically, type MemoryState } from './state.js';
import type { Tables } from './tables.js';

/** The memory {@link StepStore}. */
export class MemorySteps implements StepStore {
  /** @param state The store's tables, clock and wake-ups. */
  constructor(private readonly state: MemoryState) {}

  /** {@inheritDoc StepStore.list} */
  list(id: string): Promise<StepRecord[]> {
    return atomically(() => (this.state.tables.steps.get(id) ?? []).map(copyStep));
  }

  /** {@inheritDoc StepStore.record} */
  record(id: string, step: StepResult): Promise<StepRecord> {
    return atomically(() => {
      const { tables } = this.state;
      const stored = find(tables, id, step.name);
      if (stored !== undefined) return copyStep(stored);
      const record: StepRecord = {
        name: step.name,
        kind: 'run',
        done: true,
        result: step.result,
        topic: null,
        wakeAt: null,
        recordedAt: this.state.time(),
      };
      add(tables, id, record);
      return copyStep(record);
    });
  }

  /** {@inheritDoc StepStore.sleep} */
  sleep(lease: Lease, request: SleepRequest): Promise<WaitOutcome> {
    return atomically((): WaitOutcome => {
      const { tables } = this.state;
      const row = heldRow(tables, lease, ['fetched', 'processing']);
      if (row === undefined) return { kind: 'lost' };
      const record = this.saved(tables, lease.id, request.name, 'sleep', null, request.wakeAt);
      const wakeAt = record.wakeAt ?? request.wakeAt;
      if (!this.suspend(row, wakeAt, suspendNote(request.name, wakeAt, null))) {
        return { kind: 'done', record: copyStep(record) };
      }
      return { kind: 'suspended', wakeAt };
    });
  }

  /** {@inheritDoc StepStore.wait} */
  wait(lease: Lease, request: WaitRequest): Promise<WaitOutcome> {
    return atomically((): WaitOutcome => {
      const { tables } = this.state;
      const row = heldRow(tables, lease, ['fetched', 'processing']);
      if (row === undefined) return { kind: 'lost' };
      const { name, topic } = request;
      const record = this.saved(tables, lease.id, name, 'event', topic, request.timeoutAt);
      if (record.done) return { kind: 'done', record: copyStep(record) };
      const events = tables.events.get(lease.id) ?? [];
      const taken = events.findIndex((event) => event.topic === topic);
      const wakeAt = record.wakeAt ?? request.timeoutAt;
      if (taken >= 0) {
        const [event] = events.splice(taken, 1);
        if (events.length === 0) tables.events.delete(lease.id);
        record.done = true;
        record.result = receivedResult(event?.data ?? 'null');
      } else if (!this.suspend(row, wakeAt, suspendNote(name, wakeAt, topic))) {
        record.done = true;
        record.result = NO_EVENT_RESULT;
      } else {
        return { kind: 'suspended', wakeAt };
      }
      return { kind: 'done', record: copyStep(record) };
    });
  }

  /** {@inheritDoc StepStore.send} */
  send(id: string, topic: string, data: string): Promise<SendEventResult> {
    return atomically((): SendEventResult => {
      const { tables } = this.state;
      const row = tables.hot.get(id);
      if (row === undefined) {
        throw new ChokaQError(
          'CHOKAQ_JOB_NOT_ACTIVE',
          `job '${id}' is not active (finished, dead, purged or never enqueued): no wait could take an event`,
          { field: 'id' },
        );
      }
      const events = tables.events.get(id) ?? [];
      events.push({ topic, data });
      tables.events.set(id, events);
      const waiting = (tables.steps.get(id) ?? []).some(
        (step) => step.kind === 'event' && !step.done && step.topic === topic,
      );
      if (row.state !== 'scheduled' || !waiting) return { woke: false };
      const now = this.state.time();
      row.state = 'pending';
      row.runAt = now;
      row.updatedAt = now;
      this.state.wake.notify([row.queue]);
      return { woke: true };
    });
  }

  /** {@inheritDoc StepStore.purgeEvents} */
  purgeEvents(): Promise<EventPurge> {
    return atomically(() => {
      const { tables } = this.state;
      let deleted = 0;
      for (const [id, events] of tables.events) {
        if (tables.hot.has(id) || tables.archive.has(id) || tables.dead.has(id)) continue;
        deleted += events.length;
        tables.events.delete(id);
      }
      return { deleted, after: null };
    });
  }

  /**
   * The record of a sleep or wait named `name`, added when the job has none; throws
   * `CHOKAQ_STEP_CHANGED` when the name is recorded as another kind.
   */
  private saved(
    tables: Tables,
    id: string,
    name: string,
    kind: StepKind,
    topic: string | null,
    wakeAt: Date,
  ): StepRecord {
    const stored = find(tables, id, name);
    if (stored !== undefined) {
      if (stored.kind !== kind) throw stepChanged(name, 'recorded as another kind of step');
      if (stored.topic !== topic) {
        throw stepChanged(name, `recorded as a wait on "${String(stored.topic)}"`);
      }
      return stored;
    }
    const record: StepRecord = {
      name,
      kind,
      done: false,
      result: null,
      topic,
      wakeAt: new Date(wakeAt),
      recordedAt: this.state.time(),
    };
    add(tables, id, record);
    return record;
  }

  /**
   * Makes the held `row` scheduled until `wakeAt`, its processing run refunded, and the run kept
   * in its history as `suspended`; `false` (nothing changed) when `wakeAt` has passed.
   */
  private suspend(row: HotJob, wakeAt: Date, note: string): boolean {
    const now = this.state.time();
    if (wakeAt.getTime() <= now.getTime()) return false;
    if (row.state === 'processing') {
      row.history = appendHistory(row.history, runEntry(row, now, 'suspended', note));
      row.attempts = Math.max(0, row.attempts - 1);
    } else {
      // A run whose start was not recorded yet: its attempt number, no start time.
      const run = { attempts: row.attempts + 1, startedAt: null, workerId: row.workerId };
      row.history = appendHistory(row.history, runEntry(run, now, 'suspended', note));
    }
    toPending(row, now);
    row.state = 'scheduled';
    row.runAt = new Date(wakeAt);
    row.progress = null;
    return true;
  }
}

/** The stored step `name` of job `id`. */
function find(tables: Tables, id: string, name: string): StepRecord | undefined {
  return tables.steps.get(id)?.find((step) => step.name === name);
}

/** Appends `record` to job `id`'s steps. */
function add(tables: Tables, id: string, record: StepRecord): void {
  const steps = tables.steps.get(id) ?? [];
  steps.push(record);
  tables.steps.set(id, steps);
}

/** A copy of a stored step, so callers never hold the store's objects. */
function copyStep(step: StepRecord): StepRecord {
  return {
    ...step,
    wakeAt: step.wakeAt === null ? null : new Date(step.wakeAt),
    recordedAt: new Date(step.recordedAt),
  };
}
