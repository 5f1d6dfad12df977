/**
 * `chokaq.workers`: settings of running processes changed while they run, from any process — a
 * worker's concurrency, a job type's retry settings. The change is sent to every process through
 * the store's broadcast (the cluster events' channel) and applied by the processes it concerns at
 * once; this process applies its own share directly. It lasts until those processes restart
 * (their options say what they start with). Each change is audited.
 */
import type { Store } from '../storage/store.js';
import { ChokaQError } from '../errors.js';
import { resolveRetryPolicy, RETRY_KEYS, type RetryOptions } from '../job/retry.js';
import { BULK_JOB_TYPE } from './bulk-runner.js';
import { PRESENCE_ALIVE_MS } from '../runtime/presence.js';
import { controlMessage, type LiveControl } from '../runtime/cluster-events.js';
import { MAX_CONCURRENCY } from '../runtime/worker-options.js';
import { checkInteger, checkOptions, checkString } from '../util/check.js';
import { checkReason, type Auditor } from './audit.js';
import { checkActor } from './inputs.js';

/** Who changes a setting and why (the audit trail's actor and reason). */
export interface LiveControlOptions {
  /** Recorded in the audit trail (1–100 characters). Default: `'operator'`. */
  actor?: string;
  /** Why (1–1000 characters). Default: none. */
  reason?: string;
}

/** The retry settings a running process can change (see `RetryOptions`). */
export type LiveRetry = Pick<
  RetryOptions,
  'maxAttempts' | 'baseDelay' | 'multiplier' | 'maxDelay' | 'jitter' | 'maxAge'
>;

/** What {@link LiveControls} needs from the engine. */
export interface LiveControlsOptions {
  store: Pick<Store, 'cluster'>;
  open: () => Promise<void>;
  auditor: Auditor;
  /** This process's worker id: the origin of the messages it sends. */
  workerId: string;
  /** Applies a control in this process (another process's, or this one's own). */
  apply: (control: LiveControl) => void;
  /** Whether cluster events run here (without them, nothing reaches other processes). */
  broadcasts: boolean;
  now: () => number;
}

/** Live settings of running processes (`chokaq.workers`). */
export class LiveControls {
  constructor(private readonly options: LiveControlsOptions) {}

  /**
   * Sets how many jobs the live worker `workerId` runs at once (1–10,000), in whichever process
   * it runs; its workers row shows the new concurrency at once.
   * @throws ChokaQError `CHOKAQ_INVALID_ARGUMENT` naming `concurrency`, or `workerId` when no
   *   live worker has that id.
   */
  async setConcurrency(
    workerId: string,
    concurrency: number,
    options?: LiveControlOptions,
  ): Promise<void> {
    const id = checkString(workerId, 'workerId', 100, 'CHOKAQ_INVALID_ARGUMENT');
    const n = checkInteger(
      concurrency,
      'concurrency',
      { min: 1, max: MAX_CONCURRENCY },
      'CHOKAQ_INVALID_ARGUMENT',
    );
    const { actor, reason } = checkWho(options);
    await this.options.open();
    const worker = (await this.options.store.cluster.listWorkers(PRESENCE_ALIVE_MS)).find(
      (w) => w.id === id,
    );
    if (worker === undefined) {
      throw new ChokaQError(
        'CHOKAQ_INVALID_ARGUMENT',
        `workerId '${id}' is not a live worker (see the workers of chokaq.status())`,
        { field: 'workerId' },
      );
    }
    await this.send({ kind: 'concurrency', workerId: id, concurrency: n });
    await this.options.auditor.record({
      actor,
      action: 'worker-concurrency',
      reason,
      target: { workerId: id },
      outcome: { concurrency: n, before: worker.concurrency },
    });
  }

  /**
   * Changes job type `type`'s retry settings in every live process that runs it, on top of
   * those each runs with, for every later failure: `{ maxAttempts: 1 }` sends the next failure
   * of the type straight to the DLQ.
   * @throws ChokaQError `CHOKAQ_UNKNOWN_OPTION` or `CHOKAQ_INVALID_CONFIG` naming the field
   *   (`retry.maxAttempts`); `CHOKAQ_UNKNOWN_JOB_TYPE` when no live worker runs `type`;
   *   `CHOKAQ_INVALID_ARGUMENT` naming `type` for ChokaQ's own job type (`chokaq.bulk.v1`).
   */
  async setRetry(type: string, retry: LiveRetry, options?: LiveControlOptions): Promise<void> {
    const key = checkString(type, 'type', 255, 'CHOKAQ_INVALID_ARGUMENT');
    // Bulk actions rely on their runs being retried after a storage error or a crash.
    if (key.toLowerCase() === BULK_JOB_TYPE) {
      throw new ChokaQError(
        'CHOKAQ_INVALID_ARGUMENT',
        `type '${key}' is ChokaQ's own (it runs bulk actions): its retry settings cannot be changed`,
        { field: 'type' },
      );
    }
    const given = checkOptions(retry, 'retry', RETRY_KEYS);
    // Checked on the defaults here; each process applies it on top of its own settings.
    resolveRetryPolicy(given);
    const { actor, reason } = checkWho(options);
    await this.options.open();
    const workers = await this.options.store.cluster.listWorkers(PRESENCE_ALIVE_MS);
    const lower = key.toLowerCase();
    const runs = workers.some(
      (w) => w.types === null || w.types.some((t) => t.toLowerCase() === lower),
    );
    if (!runs) {
      throw new ChokaQError(
        'CHOKAQ_UNKNOWN_JOB_TYPE',
        `no live worker runs job type '${key}': there is no retry policy to change`,
        { field: 'type' },
      );
    }
    await this.send({ kind: 'retry', type: key, retry: given });
    await this.options.auditor.record({
      actor,
      action: 'retry-update',
      reason,
      target: { type: key },
      outcome: { retry: given },
    });
  }

  /**
   * Applies `control` here and sends it to every other process.
   * @throws ChokaQError `CHOKAQ_INVALID_CONFIG` naming `clusterEvents` when this process has
   *   them off and the control concerns another process: it could not reach it.
   */
  private async send(control: LiveControl): Promise<void> {
    const { store, workerId, apply, broadcasts, now } = this.options;
    const onlyHere = control.kind === 'concurrency' && control.workerId === workerId;
    if (!broadcasts && !onlyHere) {
      throw new ChokaQError(
        'CHOKAQ_INVALID_CONFIG',
        'this process has clusterEvents: false, so a change of other processes cannot reach them; turn cluster events on (the default)',
        { field: 'clusterEvents' },
      );
    }
    apply(control);
    if (!onlyHere) await store.cluster.broadcast(controlMessage(workerId, now(), control));
  }
}

function checkWho(options: LiveControlOptions | undefined): {
  actor: string;
  reason: string | null;
} {
  const o = checkOptions(options, 'options', ['actor', 'reason'], 'CHOKAQ_INVALID_ARGUMENT');
  return { actor: checkActor(o.actor), reason: checkReason(o.reason, 'options.reason') };
}
