/**
 * `chokaq.bulk`: safe bulk actions. `preview` snapshots the jobs an action would take (each with
 * its version) and returns a count, a sample and a confirmation token bound to that snapshot;
 * `run` confirms it with an actor and a reason and hands it to a durable job of the engine
 * (`bulk-runner.ts`), which applies exactly the snapshot, skipping and reporting jobs that
 * changed in between.
 */
import type { Store } from '../storage/store.js';
import { createHash, randomBytes } from 'node:crypto';
import { ChokaQError } from '../errors.js';
import { validateJobId } from '../job/envelope.js';
import type { JobRegistry } from '../job/registry.js';
import type { BulkAction, BulkItem, BulkSkip } from '../storage/bulk.js';
import type { SortPosition } from '../storage/job-query.js';
import type { JobSummary } from '../storage/model.js';
import { checkOptions, checkString } from '../util/check.js';
import { uuidv7 } from '../util/uuid.js';
import type { Auditor } from './audit.js';
import {
  checkBulkRequest,
  checkRunOptions,
  type BulkRequest,
  type BulkRunOptions,
  type CheckedBulkRequest,
} from './bulk-input.js';
import { checkActor, checkLimit } from './inputs.js';

/** Most jobs one bulk action takes. */
export const MAX_BULK_ITEMS = 100_000;

/** Jobs of a preview's sample. */
export const BULK_SAMPLE_SIZE = 20;

/** How long a preview can be confirmed. */
export const BULK_PREVIEW_VALID_MS = 15 * 60_000;

/** Rows read per page while a preview snapshots its jobs. */
const SNAPSHOT_PAGE = 1000;

/**
 * The ids of the jobs of the workflow job `id` belongs to (those some table holds), at most
 * {@link MAX_BULK_ITEMS}; none when no table holds the job.
 * @throws ChokaQError `CHOKAQ_BULK_TOO_LARGE` for a larger flow.
 */
async function flowIds(store: Pick<Store, 'workflows'>, id: string): Promise<string[]> {
  const graph = await store.workflows.graph(id, MAX_BULK_ITEMS);
  if (graph.truncated) {
    throw new ChokaQError(
      'CHOKAQ_BULK_TOO_LARGE',
      `request.target.flow: the flow of ${id} has more than ${MAX_BULK_ITEMS} jobs; select them by query and run several actions`,
      { field: 'request.target.flow' },
    );
  }
  if (graph.nodes.find((node) => node.id === id)?.state === 'purged') return [];
  return graph.nodes.filter((node) => node.state !== 'purged').map((node) => node.id);
}

/** What `bulk.select` found: the jobs an action would take, nothing written. */
export interface BulkSelection {
  action: BulkAction['action'];
  /** How many jobs the action would take. */
  count: number;
  /** The first jobs of the selection (at most 20). */
  sample: JobSummary[];
  /** With an `ids` target: ids that are not where the action applies (not in the DLQ, …). */
  notFound: string[];
}

/** What `bulk.preview` found. */
export interface BulkPreview {
  /** The action's id (`bulk.get`, `bulk.cancel`). */
  id: string;
  action: BulkAction['action'];
  /** How many jobs the action will take. */
  count: number;
  /** The first jobs of the selection (at most 20). */
  sample: JobSummary[];
  /** With an `ids` target: ids that are not where the action applies (not in the DLQ, …). */
  notFound: string[];
  /** Pass to `bulk.run` to confirm exactly this selection. Shown once; only its hash is kept. */
  token: string;
  /** The token is refused after this time. */
  expiresAt: Date;
}

/** What the bulk API needs from the engine. */
export interface BulkApiOptions {
  store: Pick<Store, 'bulk' | 'operator' | 'workflows'>;
  open: () => Promise<void>;
  auditor: Auditor;
  /** The user's job definitions: a preview of a patch checks that it knows every type. */
  registry: JobRegistry;
  /** Enqueues the durable run of a started action (idempotent per action). */
  enqueueRun: (actionId: string) => Promise<void>;
}

/** Safe bulk actions (`chokaq.bulk`). */
export class BulkApi {
  constructor(private readonly options: BulkApiOptions) {}

  /**
   * What `request` would take, written nowhere: the count, a sample and, with an `ids` target,
   * the ids not where the action applies. A read; confirm an action with {@link preview}.
   * @throws ChokaQError naming the field for bad input; `CHOKAQ_BULK_TOO_LARGE` past 100,000 jobs.
   */
  async select(request: BulkRequest): Promise<BulkSelection> {
    const { items, ...selection } = await this.snapshot(checkBulkRequest(request));
    return { ...selection, count: items.length };
  }

  /**
   * Selects the jobs of `request` without changing any: snapshots them with their versions and
   * returns the count, a sample and a confirmation token valid for 15 minutes.
   * @throws ChokaQError naming the field for bad input; `CHOKAQ_BULK_TOO_LARGE` past 100,000 jobs.
   */
  async preview(request: BulkRequest): Promise<BulkPreview> {
    const checked = checkBulkRequest(request);
    const { items, sample, notFound } = await this.snapshot(checked);
    const { store } = this.options;
    const id = uuidv7();
    const secret = randomBytes(24).toString('base64url');
    await store.bulk.createBulk({
      id,
      action: checked.action,
      target: checked.target,
      edit: checked.edit,
      tokenHash: hashOf(secret),
      validForMs: BULK_PREVIEW_VALID_MS,
      items,
    });
    const created = await store.bulk.getBulk(id);
    return {
      id,
      action: checked.action,
      count: items.length,
      sample,
      notFound,
      token: `${id}.${secret}`,
      expiresAt: created?.expiresAt ?? new Date(Date.now() + BULK_PREVIEW_VALID_MS),
    };
  }

  /** The jobs a checked request takes, each with its version, a sample and the ids not found. */
  private async snapshot(checked: CheckedBulkRequest): Promise<{
    action: BulkAction['action'];
    items: BulkItem[];
    sample: JobSummary[];
    notFound: string[];
  }> {
    const { store } = this.options;
    await this.options.open();
    const query =
      checked.flow === null
        ? checked.query
        : { ...checked.query, ids: await flowIds(store, checked.flow) };
    const items: BulkItem[] = [];
    const sample: JobSummary[] = [];
    const types = new Set<string>();
    let after: SortPosition | undefined;
    // Bounded: each page advances the position; a payload scan reads at most the whole table.
    for (;;) {
      const page = await store.operator.queryTable(checked.table, {
        ...query,
        limit: SNAPSHOT_PAGE,
        ...(after ? { after } : {}),
      });
      for (const row of page.rows) {
        items.push({ jobId: row.job.id, version: row.version });
        types.add(row.job.type);
        if (sample.length < BULK_SAMPLE_SIZE) sample.push(row.job);
      }
      if (items.length > MAX_BULK_ITEMS) {
        throw new ChokaQError(
          'CHOKAQ_BULK_TOO_LARGE',
          `request.target selects more than ${MAX_BULK_ITEMS} jobs; narrow it (for example by time range) and run several actions`,
          { field: 'request.target' },
        );
      }
      if (page.horizon === null) break;
      after = page.horizon;
    }
    const patch = checked.edit?.patch;
    if (patch !== undefined && checked.edit?.unchecked !== true) {
      for (const type of types) refuseUnknownType(this.options.registry, type);
    }
    const found = new Set(items.map((item) => item.jobId));
    // A flow's jobs in other states are not "not found": the action does not apply to them; a
    // flow whose job no table holds is.
    const notFound =
      checked.flow === null
        ? (checked.query.ids ?? []).filter((id) => !found.has(id))
        : items.length === 0 && (await store.operator.getJob(checked.flow)) === null
          ? [checked.flow]
          : [];
    return { action: checked.action, items, sample, notFound };
  }

  /**
   * Confirms a preview and starts it as a durable job: it survives the crash of this process,
   * runs in batches of 500 with progress, and stops between batches on `bulk.cancel`. Safe to
   * call again with the same token while it runs. Resolves to the action (status `running`).
   * @throws ChokaQError `CHOKAQ_BULK_CONFIRMATION` (malformed, mismatched or expired token, or an
   *   action that already ran), `CHOKAQ_INVALID_ARGUMENT` (actor, reason).
   */
  async run(token: string, options: BulkRunOptions): Promise<BulkAction> {
    const { id, secret } = parseToken(token);
    const { actor, reason } = checkRunOptions(options);
    const { store } = this.options;
    await this.options.open();
    const started = await store.bulk.startBulk(id, hashOf(secret), actor, reason);
    if (started !== 'started' && started !== 'running') throw confirmationError(started, id);
    await this.options.enqueueRun(id);
    const action = await store.bulk.getBulk(id);
    if (action === null) throw confirmationError('not-found', id);
    if (started === 'started') {
      await this.options.auditor.record({
        actor,
        action: `bulk-${action.action}-start`,
        reason,
        target: { bulkActionId: id, ...(action.target as object) },
        outcome: {
          total: action.total,
          // A patch for types this process does not know, applied checked as JSON only.
          ...((action.edit as { unchecked?: boolean } | null)?.unchecked === true
            ? { unchecked: true }
            : {}),
        },
      });
    }
    return action;
  }

  /** A bulk action with its status and counts, or `null`. */
  async get(id: string): Promise<BulkAction | null> {
    validateJobId(id, 'id');
    await this.options.open();
    return this.options.store.bulk.getBulk(id);
  }

  /** Bulk actions, newest first (at most `limit`, 1–1000, default 100). */
  async list(options?: { limit?: number }): Promise<BulkAction[]> {
    const o = checkOptions(options, 'options', ['limit'], 'CHOKAQ_INVALID_ARGUMENT');
    const limit = checkLimit(o.limit, 'options.limit');
    await this.options.open();
    return this.options.store.bulk.listBulk(limit);
  }

  /**
   * The jobs an action skipped, with why (changed or left since the preview, patched payload
   * refused by the schema, …), in id order: at most `limit` (1–1000, default 100).
   */
  async skipped(id: string, options?: { limit?: number }): Promise<BulkSkip[]> {
    validateJobId(id, 'id');
    const o = checkOptions(options, 'options', ['limit'], 'CHOKAQ_INVALID_ARGUMENT');
    const limit = checkLimit(o.limit, 'options.limit');
    await this.options.open();
    return this.options.store.bulk.bulkSkips(id, limit);
  }

  /**
   * Stops a bulk action: a previewed one can no longer run; a running one stops before its next
   * batch (the batch in flight completes). Resolves to the action, or `null` when unknown.
   */
  async cancel(id: string, options?: { actor?: string }): Promise<BulkAction | null> {
    validateJobId(id, 'id');
    const actor = checkActor(
      checkOptions(options, 'options', ['actor'], 'CHOKAQ_INVALID_ARGUMENT').actor,
    );
    await this.options.open();
    return this.options.store.bulk.requestBulkCancel(id, actor);
  }
}

/**
 * Refuses a patch for jobs of `type` when this process has no definition of it: it could not
 * check the patched payloads, and the worker that runs the action might not either.
 */
function refuseUnknownType(registry: JobRegistry, type: string): void {
  if (registry.find(type)) return;
  throw new ChokaQError(
    'CHOKAQ_UNKNOWN_JOB_TYPE',
    `the patch cannot be checked: the selection holds jobs of type '${type}', and this process does not know that type or its schema. Load the type (chokaq deck --module), or apply the patch checked as JSON only (The Deck: tick "Apply the patch checked as JSON only"; API: edit.unchecked: true; CLI: --unchecked)`,
    { field: 'request.edit.patch' },
  );
}

/** SHA-256 of a token's secret, hex. */
function hashOf(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Splits a confirmation token into the action id and the secret. */
function parseToken(token: unknown): { id: string; secret: string } {
  const text = checkString(token, 'token', 200, 'CHOKAQ_BULK_CONFIRMATION');
  const dot = text.indexOf('.');
  const id = text.slice(0, dot);
  const secret = text.slice(dot + 1);
  if (dot <= 0 || secret.length === 0 || id.length > 50) {
    throw new ChokaQError(
      'CHOKAQ_BULK_CONFIRMATION',
      "token must be the 'token' of a bulk.preview result",
      { field: 'token' },
    );
  }
  return { id, secret };
}

/** The error for a start that did not happen. */
function confirmationError(
  why: 'not-found' | 'token-mismatch' | 'expired' | 'not-previewed',
  id: string,
): ChokaQError {
  const message = {
    'not-found': `no bulk action ${id}; preview it first`,
    'token-mismatch': `token does not match the preview of bulk action ${id}`,
    expired: `the preview of bulk action ${id} expired; preview it again`,
    'not-previewed': `bulk action ${id} already ran or was cancelled; preview it again`,
  }[why];
  return new ChokaQError('CHOKAQ_BULK_CONFIRMATION', message, { field: 'token' });
}
