-- Purpose: a batch in one statement (docs/workflows.md, "Batches"): inserts its members (pending,
--   or scheduled with a delay, each carrying the batch id), its callback jobs (awaiting: the batch
--   fires them) and the batch row (total = the members), and ensures a queues row per distinct
--   queue. Batch jobs take no idempotency key (the caller refused them), so every row is new.
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
--   $10 concurrencyKeys: (text or NULL)[] — their concurrency keys
--   $11 concurrencyLimits: (int or NULL)[] — their concurrency limits
--   $12 roles: smallint[] — each job's role: 0 a member, 1 the success callback, 2 the complete
--     callback, 3 the death callback
--   $13 batchId: text — the batch's id
--   $14 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: row inserts only; queue rows in name order (as enqueue.sql). A duplicate job id
--   raises 23505 on jobs_hot_pkey, a batch id in use on batches_pkey; nothing is then written.
-- Returns: id of each inserted job.
-- Row: id text
WITH input AS (
  SELECT *
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::float8[],
              $7::text[], $8::text[], $9::text[], $10::text[], $11::int[], $12::smallint[])
    WITH ORDINALITY AS t(id, queue, type, payload, priority, delay_ms, tags, created_by,
                         trace_parent, concurrency_key, concurrency_limit, role, ord)
),
ensure_queues AS (
  INSERT INTO :SCHEMA.queues (name, updated_at)
  SELECT DISTINCT queue, :NOW FROM input ORDER BY 1
  ON CONFLICT (name) DO NOTHING
),
batch AS (
  INSERT INTO :SCHEMA.batches (id, total, on_success_id, on_complete_id, on_death_id, created_at)
  SELECT $13::text, count(*) FILTER (WHERE role = 0),
         min(id) FILTER (WHERE role = 1), min(id) FILTER (WHERE role = 2),
         min(id) FILTER (WHERE role = 3), :NOW
  FROM input
),
inserted AS (
  INSERT INTO :SCHEMA.jobs_hot (id, queue, type, payload, tags, priority, status, attempts, run_at,
                                created_at, updated_at, created_by, trace_parent, concurrency_key,
                                concurrency_limit, batch_id)
  SELECT id, queue, type, payload, tags, priority,
         CASE WHEN role <> 0 THEN :AWAITING WHEN delay_ms > 0 THEN :SCHEDULED ELSE :PENDING END,
         0, :NOW + delay_ms * interval '1 millisecond', :NOW, :NOW, created_by, trace_parent,
         concurrency_key, concurrency_limit, CASE WHEN role = 0 THEN $13::text END
  FROM input
  ORDER BY ord
  RETURNING id
)
SELECT id FROM inserted
