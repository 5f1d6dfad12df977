-- Purpose: refresh the heartbeat of claimed jobs (processing, or fetched and running under a
--   start not recorded yet) whose leases are still held, and report
--   whether an operator asked to cancel each one; stores the handler's latest progress.
-- Parameters (parallel arrays):
--   $1 ids: text[] — the jobs' ids
--   $2 workerIds: text[] — the worker holding each lease
--   $3 leaseTokens: text[] — each job's lease token
--   $4 progress: (real or NULL)[] — each job's progress; NULL elements keep the stored value
--   $5 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: row locks on the updated hot rows (UPDATE). A row that rescue has locked makes this
--   wait; once rescue commits, the row is gone or no longer matches, so the lease reads as lost.
-- Returns: id, worker_id, lease_token, cancel_requested (boolean) and cancel_requested_by (the
--   requester's actor) of every lease still alive; leases not returned are lost.
-- Row: id text, worker_id text, lease_token text, cancel_requested boolean,
--   cancel_requested_by text or NULL
UPDATE :SCHEMA.jobs_hot h
SET heartbeat_at = :NOW,
    progress = coalesce(l.progress, h.progress),
    updated_at = :NOW
-- Arrays behind `(SELECT …)`: read by index however many ids (fragments/archive_moved.sql).
FROM unnest((SELECT $1::text[]), (SELECT $2::text[]), (SELECT $3::text[]), (SELECT $4::real[]))
  AS l(id, worker_id, lease_token, progress)
WHERE h.id = l.id
  AND h.worker_id = l.worker_id
  AND h.lease_token = l.lease_token
  -- Fetched too: a run whose start the worker has not recorded yet (it is recorded with the next
  -- settle round) keeps its lease. By primary key, not the active-rows index (settle_archive.sql).
  AND h.status + 0 IN (:FETCHED, :PROCESSING)
RETURNING h.id, h.worker_id, h.lease_token, h.cancel_requested_at IS NOT NULL AS cancel_requested,
          h.cancel_requested_by
