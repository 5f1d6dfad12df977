-- Purpose: bulk insert of new jobs without idempotency keys that share their queue, type,
--   priority, delay, tags, creator and trace context (the usual enqueueMany of one job type): the insert of
--   enqueue_plain.sql with the shared columns sent once, so only ids and payloads travel as
--   arrays (about a quarter faster than eight arrays for 1,000 rows here). Ensures the queue row.
--   Delayed jobs are scheduled, the others pending (as enqueue.sql).
-- Parameters:
--   $1 ids: text[] — the jobs' ids, one element per job
--   $2 payloads: text[] — their payloads, in the same order
--   $3 queue: text — the queue of every job
--   $4 type: text — their type key
--   $5 priority: int — their priority
--   $6 delayMs: float8 — their delay in ms (0: due now)
--   $7 tags: text or NULL — their tags
--   $8 createdBy: text or NULL — who enqueued them
--   $9 traceParent: text or NULL — their trace parent
--   $10 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: row inserts only. A duplicate id raises 23505 on jobs_hot_pkey and nothing is written.
-- Returns: nothing; every row was inserted when the statement succeeds.
WITH ensure_queue AS (
  INSERT INTO :SCHEMA.queues (name, updated_at)
  VALUES ($3::text, :NOW)
  ON CONFLICT (name) DO NOTHING
)
INSERT INTO :SCHEMA.jobs_hot (id, queue, type, payload, tags, priority, status, attempts, run_at,
                              created_at, updated_at, created_by, trace_parent)
SELECT id, $3::text, $4::text, payload, $7::text, $5::int,
       CASE WHEN $6::float8 > 0 THEN :SCHEDULED ELSE :PENDING END, 0,
       :NOW + $6::float8 * interval '1 millisecond', :NOW, :NOW, $8::text, $9::text
FROM unnest($1::text[], $2::text[]) AS t(id, payload)
