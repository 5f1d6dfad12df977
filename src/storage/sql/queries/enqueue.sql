-- Purpose: bulk insert of new jobs in one statement; ensures a queues row per distinct queue.
--   A job with a delay is scheduled (outside the fetch indexes until the promoter makes it
--   pending), one without is pending.
--   A job whose idempotency key is held by a hot row is skipped (not returned); the caller
--   reads the holder with enqueue_holders. A duplicate id raises 23505 on jobs_hot_pkey.
-- Parameters (parallel arrays, one element per job):
--   $1 ids: text[] — the jobs' ids
--   $2 queues: text[] — their queues
--   $3 types: text[] — their type keys
--   $4 payloads: text[] — their payloads
--   $5 priorities: int[] — their priorities
--   $6 delaysMs: float8[] — their delays in ms (0: due now)
--   $7 idempotencyKeys: (text or NULL)[] — their idempotency keys
--   $8 tags: (text or NULL)[] — their tags
--   $9 createdBy: (text or NULL)[] — who enqueued them
--   $10 traceParents: (text or NULL)[] — their trace parents
--   $11 concurrencyKeys: (text or NULL)[] — their concurrency keys
--   $12 concurrencyLimits: (int or NULL)[] — their concurrency limits
--   $13 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: row inserts only. Queue rows are inserted in name order so concurrent enqueues
--   touching several new queues cannot deadlock; a conflicting idempotency key waits for the
--   holder's transaction and is then skipped (ON CONFLICT DO NOTHING).
-- Returns: id of each inserted row.
-- Row: id text
WITH input AS (
  SELECT *
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::float8[],
              $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::int[])
    WITH ORDINALITY AS t(id, queue, type, payload, priority, delay_ms, idempotency_key, tags,
                         created_by, trace_parent, concurrency_key, concurrency_limit, ord)
),
ensure_queues AS (
  INSERT INTO :SCHEMA.queues (name, updated_at)
  SELECT DISTINCT queue, :NOW FROM input ORDER BY 1
  ON CONFLICT (name) DO NOTHING
),
inserted AS (
  INSERT INTO :SCHEMA.jobs_hot (id, queue, type, payload, tags, idempotency_key, priority, status,
                                attempts, run_at, created_at, updated_at, created_by,
                                trace_parent, concurrency_key, concurrency_limit)
  SELECT id, queue, type, payload, tags, idempotency_key, priority,
         CASE WHEN delay_ms > 0 THEN :SCHEDULED ELSE :PENDING END,
         0, :NOW + delay_ms * interval '1 millisecond', :NOW, :NOW, created_by, trace_parent,
         concurrency_key, concurrency_limit
  FROM input
  ORDER BY ord
  ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
  RETURNING id
)
SELECT id FROM inserted
