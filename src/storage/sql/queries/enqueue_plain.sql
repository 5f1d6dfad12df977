-- Purpose: bulk insert of new jobs none of which has an idempotency key (the common case): the
--   same insert as enqueue.sql without the conflict arbiter, ordering and RETURNING, so a batch
--   costs less on both sides. Ensures a queues row per distinct queue. Delayed jobs are
--   scheduled, the others pending (as enqueue.sql).
-- Parameters (parallel arrays, one element per job):
--   $1 ids: text[] — the jobs' ids
--   $2 queues: text[] — their queues
--   $3 types: text[] — their type keys
--   $4 payloads: text[] — their payloads
--   $5 priorities: int[] — their priorities
--   $6 delaysMs: float8[] — their delays in ms (0: due now)
--   $7 tags: (text or NULL)[] — their tags
--   $8 createdBy: (text or NULL)[] — who enqueued them
--   $9 traceParents: (text or NULL)[] — their trace parents
--   $10 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: row inserts only; queue rows inserted in name order (no deadlocks between batches).
--   A duplicate id raises 23505 on jobs_hot_pkey and nothing is written.
-- Returns: nothing; every row was inserted when the statement succeeds.
WITH input AS (
  SELECT *
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::float8[],
              $7::text[], $8::text[], $9::text[])
    AS t(id, queue, type, payload, priority, delay_ms, tags, created_by, trace_parent)
),
ensure_queues AS (
  INSERT INTO :SCHEMA.queues (name, updated_at)
  SELECT DISTINCT queue, :NOW FROM input ORDER BY 1
  ON CONFLICT (name) DO NOTHING
)
INSERT INTO :SCHEMA.jobs_hot (id, queue, type, payload, tags, priority, status, attempts, run_at,
                              created_at, updated_at, created_by, trace_parent)
SELECT id, queue, type, payload, tags, priority,
       CASE WHEN delay_ms > 0 THEN :SCHEDULED ELSE :PENDING END, 0,
       :NOW + delay_ms * interval '1 millisecond', :NOW, :NOW, created_by, trace_parent
FROM input
