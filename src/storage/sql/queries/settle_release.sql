-- Purpose: give back prefetched jobs: fetched → pending at once (paused queue, shutdown).
--   No counter changes; run_at is kept, so the job stays due.
-- Parameters (parallel arrays):
--   $1 ids: text[] — the jobs' ids
--   $2 workerIds: text[] — the worker holding each lease
--   $3 leaseTokens: text[] — each job's lease token
--   $4 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: row locks on the updated hot rows.
-- Returns: id and queue of each released job.
-- Row: id text, queue text
UPDATE :SCHEMA.jobs_hot h
SET status = :PENDING,
    worker_id = NULL,
    lease_token = NULL,
    heartbeat_at = NULL,
    updated_at = :NOW
-- Arrays behind `(SELECT …)`: read by index however many ids (fragments/archive_moved.sql).
FROM unnest((SELECT $1::text[]), (SELECT $2::text[]), (SELECT $3::text[]))
  AS l(id, worker_id, lease_token)
WHERE h.id = l.id
  AND h.worker_id = l.worker_id
  AND h.lease_token = l.lease_token
  AND h.status + 0 = :FETCHED -- by primary key, not the active-rows index (settle_archive.sql)
RETURNING h.id, h.queue
