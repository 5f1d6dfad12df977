-- Purpose: rescue step (a): fetched rows not touched for the timeout go back to pending, with no
--   worker and no lease. attempts and run_at are kept (no run happened).
-- Parameters:
--   $1 timeoutMs: float8 — the fetched timeout in ms
--   $2 limit: int — most rows to move
--   $3 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: FOR UPDATE SKIP LOCKED on the stale rows, oldest first (found through the small
--   partial jobs_hot_active_idx over fetched + processing rows): a row a worker is starting or
--   releasing right now is left to the worker.
-- Returns: id of each released job.
WITH stale AS (
  SELECT h.id
  FROM :SCHEMA.jobs_hot h
  WHERE h.status = :FETCHED
    AND h.updated_at < :NOW - $1::float8 * interval '1 millisecond'
  ORDER BY h.updated_at
  LIMIT $2::int
  FOR UPDATE SKIP LOCKED
)
UPDATE :SCHEMA.jobs_hot h
SET status = :PENDING,
    worker_id = NULL,
    lease_token = NULL,
    heartbeat_at = NULL,
    updated_at = :NOW
FROM stale s
WHERE h.id = s.id
  AND h.status = :FETCHED
RETURNING h.id
