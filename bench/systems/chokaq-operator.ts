/**
 * ChokaQ's operator side in the bench (W6): history seeded the way a busy system has it — ten
 * queues, twenty types, tags on every tenth job, a month of creation times, 200 DLQ error groups
 * with the summary ChokaQ keeps beside them — and the operator requests The Deck and the CLI send.
 */
import type { ChokaQ } from 'chokaq';
import type { OperatorSide } from './adapter.js';
import { startDeck, type BenchDeck } from './chokaq-deck.js';

interface Queryable {
  query(sql: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
}

/** Error groups among the seeded DLQ rows. */
const GROUPS = 200;
const DAY_MS = 86_400_000;

/** The operator side of a ChokaQ adapter; `db` and `client` exist after the adapter's reset. */
export class ChokaQOperatorSide implements OperatorSide {
  private deck: BenchDeck | undefined;

  constructor(
    private readonly schema: string,
    private readonly db: () => Queryable,
    private readonly client: () => ChokaQ,
  ) {}

  async seed(archive: number, dead: number): Promise<string> {
    const db = this.db();
    const s = this.schema;
    await db.query(
      `INSERT INTO ${s}.jobs_archive (id, queue, type, payload, tags, attempts, worker_id,
                                     created_at, started_at, finished_at, duration_ms)
       SELECT 'a' || lpad(g::text, 12, '0'), 'q' || (g % 10), 'type.' || (g % 20) || '.v1',
              '{"tenant":"t' || (g % 50) || '","i":' || g || '}',
              CASE WHEN g % 10 = 0 THEN 'vip, tenant-' || ((g / 10) % 50) END,
              CASE WHEN g % 7 = 0 THEN 2 ELSE 1 END, 'history',
              now() - (g * $2::float8 * interval '1 ms'), now() - (g * $2::float8 * interval '1 ms'),
              now() - (g * $2::float8 * interval '1 ms') + interval '40 ms', 40
       FROM generate_series(1, $1::int) AS g`,
      [archive, (30 * DAY_MS) / archive],
    );
    await db.query(
      `INSERT INTO ${s}.jobs_dlq (id, queue, type, payload, tags, failure_reason, error_details,
                                 fingerprint, attempts, worker_id, created_at, failed_at)
       SELECT 'd' || lpad(g::text, 12, '0'), 'q' || (g % 10), 'type.' || (g % 20) || '.v1',
              '{"tenant":"t' || (g % 50) || '","i":' || g || '}',
              CASE WHEN g % 10 = 0 THEN 'vip' END, (ARRAY[6, 7, 8, 2])[1 + g % 4],
              'Error: upstream ' || (g % $3::int) || ' refused connection ' || g,
              'fp' || lpad((g % $3::int)::text, 14, '0'), 1 + g % 5, 'history',
              now() - (g * $2::float8 * interval '1 ms'),
              now() - (g * $2::float8 * interval '1 ms') + interval '1 s'
       FROM generate_series(1, $1::int) AS g`,
      [dead, (30 * DAY_MS) / dead, GROUPS],
    );
    await db.query(
      `INSERT INTO ${s}.dlq_error_groups (fingerprint, queue, type, error_class, message,
                                         dead_count, first_seen, last_seen)
       SELECT fingerprint, queue, type, 'Error', 'upstream <n> refused connection <n>', count(*),
              min(failed_at), max(failed_at)
       FROM ${s}.jobs_dlq GROUP BY fingerprint, queue, type`,
    );
    await db.query(`VACUUM (ANALYZE) ${s}.jobs_archive, ${s}.jobs_dlq, ${s}.dlq_error_groups`);
    await db.query('CHECKPOINT');
    return `${archive.toLocaleString('en-US')} archived jobs (10 queues, 20 types, tags on every tenth, over 30 days) and ${dead.toLocaleString('en-US')} dead ones in ${GROUPS} error groups, with the group summary; then VACUUM (ANALYZE) and CHECKPOINT`;
  }

  async requests(): Promise<[string, () => Promise<unknown>][]> {
    const chokaq = this.client();
    const first = await chokaq.jobs.query({ limit: 100 });
    const cursor = first.nextCursor ?? undefined;
    const recent = { from: new Date(Date.now() - 3 * DAY_MS), to: new Date(Date.now() - DAY_MS) };
    const [sample] = first.jobs;
    this.deck ??= await startDeck(chokaq);
    const deck = this.deck;
    return [
      ['first page', () => chokaq.jobs.query({ limit: 100 })],
      ['next page', () => chokaq.jobs.query({ limit: 100, ...(cursor ? { cursor } : {}) })],
      [
        'DLQ page: queue + type + error words',
        () =>
          chokaq.jobs.query({
            state: 'dead',
            queue: 'q3',
            type: 'type.3.v1',
            errorText: 'refused',
            limit: 100,
          }),
      ],
      [
        'DLQ page: error group',
        () => chokaq.jobs.query({ errorGroup: 'fp00000000000042', limit: 100 }),
      ],
      [
        'archive page: type + finished range, by finish time',
        () =>
          chokaq.jobs.query({
            state: 'succeeded',
            type: 'type.7.v1',
            finished: recent,
            sort: 'finishedAt',
            limit: 100,
          }),
      ],
      ['archive page: tag', () => chokaq.jobs.query({ state: 'succeeded', tags: 'tenant-7' })],
      ['count: dead in a queue', () => chokaq.jobs.count({ state: 'dead', queue: 'q3' })],
      ['error groups', () => chokaq.dlq.groups({ limit: 100 })],
      ['job detail', () => chokaq.jobs.get(sample?.id ?? 'none')],
      // The same pages as The Deck's browser asks for them, over HTTP.
      ['Deck: first page', () => deck.get('api/jobs', { limit: 100 })],
      [
        'Deck: DLQ page, queue + type + error words',
        () =>
          deck.get('api/jobs', {
            state: 'dead',
            queue: 'q3',
            type: 'type.3.v1',
            errorText: 'refused',
            limit: 50,
          }),
      ],
      ['Deck: error groups', () => deck.get('api/dlq/groups', { limit: 50 })],
      ['Deck: job detail', () => deck.get(`api/jobs/${encodeURIComponent(sample?.id ?? 'none')}`)],
    ];
  }

  /** Stops The Deck the requests used. */
  async close(): Promise<void> {
    await this.deck?.close();
    this.deck = undefined;
  }
}
