/**
 * Durable steps over SQL ({@link StepStore}). A sleep or wait runs in one transaction that first
 * locks the job's hot row under the run's lease (step_hold.sql); a send locks the same row first
 * (step_send_hold.sql), so an event sent while the run decides to wait is never missed: the wait
 * takes it, or the send finds the wait and makes the job due.
 */
import { ChokaQError } from '../../errors.js';
import type { Lease } from '../job-store.js';
import {
  NO_EVENT_RESULT,
  STEP_KIND_BY_CODE,
  STEP_KIND_CODE,
  receivedResult,
  stepChanged,
  suspendNote,
  type EventPurge,
  type SendEventResult,
  type SleepRequest,
  type StepRecord,
  type StepResult,
  type StepStore,
  type WaitOutcome,
  type WaitRequest,
} from '../step-store.js';
import { errorCode } from './errors.js';
import type { Executor } from './executor.js';
import { toDate, toDateOrNull, toNumber } from './rows.js';
import type { SqlContext } from './sql-context.js';
import * as run from './statements.js';
import type { StepListRow } from './statements.js';

/** {@link StepStore} over SQL. */
export class SqlSteps implements StepStore {
  /** Present when the backend runs statements in a caller's transaction (PostgreSQL). */
  readonly recordWithin?: (transaction: unknown, id: string, step: StepResult) => Promise<void>;

  /**
   * @param context The connection, statements and wake-ups shared by the store's parts.
   * @param within The backend's executor over a caller's transaction, if it has one.
   */
  constructor(
    private readonly context: SqlContext,
    within?: (transaction: unknown) => Executor,
  ) {
    if (within !== undefined) {
      this.recordWithin = (transaction, id, step) => this.recordOn(within(transaction), id, step);
    }
  }

  /** {@inheritDoc StepStore.list} */
  async list(id: string): Promise<StepRecord[]> {
    const db = await this.context.db();
    return (await run.stepList(db, this.context.sql, { id })).map(stepRecordOf);
  }

  /** {@inheritDoc StepStore.record} */
  async record(id: string, step: StepResult): Promise<StepRecord> {
    const db = await this.context.db();
    const now = this.context.now();
    const [row] = await run.stepRecord(db, this.context.sql, { id, ...step, now });
    // No row: a concurrent run's record committed while this insert waited; read it.
    const stored = row ?? (await run.stepGet(db, this.context.sql, { id, name: step.name }))[0];
    if (stored === undefined) throw new Error(`step "${step.name}" of job ${id} was not recorded`);
    return stepRecordOf(stored);
  }

  /** {@inheritDoc StepStore.sleep} */
  sleep(lease: Lease, request: SleepRequest): Promise<WaitOutcome> {
    return this.holding('sleep', lease, async (tx) => {
      const saved = await this.save(tx, lease.id, {
        name: request.name,
        kind: STEP_KIND_CODE.sleep,
        done: false,
        result: null,
        topic: null,
        wakeAt: request.wakeAt,
      });
      if (saved === undefined) throw stepChanged(request.name, OTHER_KIND);
      const record = stepRecordOf(saved);
      const wakeAt = record.wakeAt ?? request.wakeAt;
      if (await this.suspend(tx, lease, wakeAt, suspendNote(request.name, wakeAt, null))) {
        return { kind: 'suspended', wakeAt };
      }
      return { kind: 'done', record };
    });
  }

  /** {@inheritDoc StepStore.wait} */
  wait(lease: Lease, request: WaitRequest): Promise<WaitOutcome> {
    return this.holding('wait', lease, async (tx) => {
      const { sql } = this.context;
      const [earlier] = await run.stepGet(tx, sql, { id: lease.id, name: request.name });
      if (earlier !== undefined && earlier.kind !== STEP_KIND_CODE.event) {
        throw stepChanged(request.name, OTHER_KIND);
      }
      if (earlier !== undefined && earlier.topic !== request.topic) {
        throw stepChanged(request.name, `recorded as a wait on "${String(earlier.topic)}"`);
      }
      if (earlier?.done === true) return { kind: 'done', record: stepRecordOf(earlier) };
      const wait = {
        name: request.name,
        kind: STEP_KIND_CODE.event,
        topic: request.topic,
        wakeAt:
          earlier?.wake_at === null || earlier === undefined
            ? request.timeoutAt
            : toDate(earlier.wake_at),
      };
      const [event] = await run.stepTakeEvent(tx, sql, { id: lease.id, topic: request.topic });
      if (event !== undefined) {
        const saved = await this.save(tx, lease.id, {
          ...wait,
          done: true,
          result: receivedResult(event.data),
        });
        return saved === undefined
          ? kindChanged(request.name)
          : { kind: 'done', record: stepRecordOf(saved) };
      }
      const waiting = await this.save(tx, lease.id, { ...wait, done: false, result: null });
      if (waiting === undefined) throw stepChanged(request.name, OTHER_KIND);
      const note = suspendNote(request.name, wait.wakeAt, request.topic);
      if (await this.suspend(tx, lease, wait.wakeAt, note)) {
        return { kind: 'suspended', wakeAt: wait.wakeAt };
      }
      const timedOut = await this.save(tx, lease.id, {
        ...wait,
        done: true,
        result: NO_EVENT_RESULT,
      });
      return timedOut === undefined
        ? kindChanged(request.name)
        : { kind: 'done', record: stepRecordOf(timedOut) };
    });
  }

  /** {@inheritDoc StepStore.send} */
  async send(id: string, topic: string, data: string): Promise<SendEventResult> {
    const db = await this.context.db();
    const { sql } = this.context;
    const woken = await this.context.retryOnConflict('send', () =>
      db.transaction(async (tx) => {
        const [job] = await run.stepSendHold(tx, sql, { id });
        if (job === undefined) {
          throw new ChokaQError(
            'CHOKAQ_JOB_NOT_ACTIVE',
            `job '${id}' is not active (finished, dead, purged or never enqueued): no wait could take an event`,
            { field: 'id' },
          );
        }
        const now = this.context.now();
        return (await run.stepSend(tx, sql, { id, topic, data, now }))[0]?.queue;
      }),
    );
    if (woken !== undefined) this.context.wakeHereFirst([woken]);
    return { woke: woken !== undefined };
  }

  /** {@inheritDoc StepStore.purgeEvents} */
  async purgeEvents(limit: number, after: number | null): Promise<EventPurge> {
    const db = await this.context.db();
    const most = Math.max(1, Math.floor(limit));
    const [row] = await run.stepPurgeEvents(db, this.context.sql, { after, limit: most });
    if (row === undefined) return { deleted: 0, after: null };
    const last = row.last === null ? null : toNumber(row.last);
    return { deleted: toNumber(row.n), after: toNumber(row.scanned) < most ? null : last };
  }

  /** Records a run step on `db` (a caller's transaction), its name conflict coded. */
  private async recordOn(db: Executor, id: string, step: StepResult): Promise<void> {
    await this.context.db(); // migrations, and a closed store fails here
    try {
      await run.stepRecordWithin(db, this.context.sql, { id, ...step, now: this.context.now() });
    } catch (error) {
      if (errorCode(error) !== '23505') throw error;
      throw new ChokaQError(
        'CHOKAQ_STEP_RECORDED',
        `step "${step.name}" of job ${id} was recorded already by another run; roll back this transaction`,
        { field: 'name', cause: error },
      );
    }
  }

  /**
   * Runs `work` in a transaction that first locks the job's hot row under `lease` (`lost` when
   * the lease is no longer held); a suspension frees the job's slot in a capped queue, whose
   * workers are woken once it committed.
   */
  private async holding(
    what: string,
    lease: Lease,
    work: (tx: Executor) => Promise<WaitOutcome>,
  ): Promise<WaitOutcome> {
    const db = await this.context.db();
    const { outcome, queue } = await this.context.retryOnConflict(what, () =>
      db.transaction(async (tx) => {
        const [held] = await run.stepHold(tx, this.context.sql, {
          id: lease.id,
          workerId: lease.workerId,
          leaseToken: lease.leaseToken,
        });
        if (held === undefined) return { outcome: { kind: 'lost' } as const, queue: null };
        return { outcome: await work(tx), queue: held.queue };
      }),
    );
    if (outcome.kind === 'suspended' && queue !== null) this.context.wakeCapped([queue]);
    return outcome;
  }

  /** Saves a sleep or wait record; `undefined` when the name is recorded as another kind. */
  private async save(
    tx: Executor,
    id: string,
    step: {
      name: string;
      kind: number;
      done: boolean;
      result: string | null;
      topic: string | null;
      wakeAt: Date;
    },
  ): Promise<StepListRow | undefined> {
    const rows = await run.stepSave(tx, this.context.sql, { id, ...step, now: this.context.now() });
    if (rows[0] !== undefined) return rows[0];
    // No row: the name's record is done already or of another kind; only the first is an answer.
    const [stored] = await run.stepGet(tx, this.context.sql, { id, name: step.name });
    return stored !== undefined && stored.kind === step.kind ? stored : undefined;
  }

  /** Suspends the held job until `wakeAt`; `false` when that time has passed already. */
  private async suspend(tx: Executor, lease: Lease, wakeAt: Date, note: string): Promise<boolean> {
    const rows = await run.stepSuspend(tx, this.context.sql, {
      id: lease.id,
      workerId: lease.workerId,
      leaseToken: lease.leaseToken,
      wakeAt,
      note,
      now: this.context.now(),
    });
    return rows.length > 0;
  }
}

/** What {@link stepChanged} says of a name recorded as another kind of step. */
const OTHER_KIND = 'recorded as another kind of step';

/** The coded error of a name recorded as another kind, where an expression needs one. */
function kindChanged(name: string): never {
  throw stepChanged(name, OTHER_KIND);
}

/** A stored step row as the seam's record. */
export function stepRecordOf(row: StepListRow): StepRecord {
  return {
    name: row.name,
    kind: STEP_KIND_BY_CODE[row.kind] ?? 'run',
    done: row.done,
    result: row.result,
    topic: row.topic,
    wakeAt: toDateOrNull(row.wake_at),
    recordedAt: toDate(row.recorded_at),
  };
}
