-- Purpose: claim due pending jobs: pending → fetched with the worker id and one lease token for
--   the whole batch (the worker records each run's start as it runs them), changed_at stamped (the row's version for bulk snapshots). Rows carrying a cancel request are never claimed (rescue moves them to
--   the DLQ), nor rows of job types the worker cannot run. Per eligible queue (not paused,
--   active, in the list if given) take up to least(limit, room) rows, room = max_workers −
--   (fetched + processing) or limit when uncapped; then keep the best `limit` rows overall by
--   priority desc, run_at, id — across queues, capped or not.
-- Parameters:
--   $1 workerId: text — the claiming worker's id
--   $2 limit: int — most jobs
--   $3 queues: text[] or NULL — the queues to claim from; NULL for all
--   $4 leaseToken: text — one lease token for the whole batch
--   $5 withCapped: boolean — false claims only from queues without a maxWorkers cap, true from
--     every eligible queue
--   $6 types: text[] or NULL — job types the worker can run, lower-case; NULL for every type (pipe
--     mode). The type test is a filter on the fetch index scan: rows of other types are stepped
--     over, never locked. So are rows with a concurrency key: only claim_keyed.sql claims them (the
--     claim store sends that statement instead of this one when a wanted queue holds pending keyed
--     jobs).
--   $7 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: FOR UPDATE SKIP LOCKED on candidate rows (never hands a row to two claimers).
--   The transaction commits with synchronous_commit off (see the final SELECT).
--   Without capped queues ($5 false) the claim runs alone, as one autocommit statement (the fast
--   path: one round trip). With capped queues it would have to run in a transaction right after
--   claim_lock_capped_queues, so their caps are exact; the store sends claim_capped.sql for
--   claims that want capped queues instead (it locks them itself), and this one with $5 false.
-- Returns: id, queue, type, payload, attempts, trace_parent, run_at and created_at (epoch ms) of
--   the claimed rows, in claim order, and stale (false); one row with a NULL id when nothing was
--   claimed. Every claimed row is fetched under $1 and $4, which are not sent back.
-- Row: id text or NULL, queue text or NULL, type text or NULL, payload text or NULL,
--   attempts int or NULL, trace_parent text or NULL, run_at float8 or NULL,
--   created_at float8 or NULL, has_dependents boolean or NULL, stale boolean
WITH eligible AS (
  SELECT q.name,
         CASE
           WHEN q.max_workers IS NULL THEN $2::int
           ELSE least($2::int, greatest(q.max_workers - (
             SELECT count(*)::int
             FROM :SCHEMA.jobs_hot f
             WHERE f.queue = q.name AND f.status IN (:FETCHED, :PROCESSING)
           ), 0))
         END AS room,
         $6::text[] AS types
  FROM :SCHEMA.queues q
  WHERE NOT q.is_paused
    AND q.is_active
    AND ($5::boolean OR q.max_workers IS NULL)
    AND ($3::text[] IS NULL OR q.name = ANY($3::text[]))
),
picked AS (
  SELECT c.id, c.priority, c.run_at,
         row_number() OVER (ORDER BY c.priority DESC, c.run_at, c.id) AS rank
:INCLUDE unkeyed_lateral
  ORDER BY c.priority DESC, c.run_at, c.id
  LIMIT $2::int
),
claim_flags AS (
  SELECT false AS stale
),
:INCLUDE claim_finish
