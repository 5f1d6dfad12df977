-- Purpose: the lease gate: fetched → processing for every lease still held; attempts + 1.
-- Parameters (parallel arrays):
--   $1 ids: text[] — the jobs' ids
--   $2 workerIds: text[] — the worker holding each lease
--   $3 leaseTokens: text[] — each job's lease token
--   $4 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: row locks on the matched hot rows (UPDATE).
-- Returns: the started rows' columns a worker needs, as claim.sql returns them.
-- Row: id text, queue text, type text, payload text or NULL, status smallint, attempts int,
--   worker_id text or NULL, lease_token text or NULL, trace_parent text or NULL, run_at float8,
--   created_at float8, has_dependents boolean or NULL
UPDATE :SCHEMA.jobs_hot h
SET status = :PROCESSING,
    attempts = h.attempts + 1,
    started_at = :NOW,
    heartbeat_at = :NOW,
    updated_at = :NOW
-- Arrays behind `(SELECT …)`: read by index however many ids (fragments/archive_moved.sql).
FROM unnest((SELECT $1::text[]), (SELECT $2::text[]), (SELECT $3::text[]))
  AS l(id, worker_id, lease_token)
WHERE h.id = l.id
  AND h.worker_id = l.worker_id
  AND h.lease_token = l.lease_token
  AND h.status + 0 = :FETCHED -- by primary key, not the active-rows index (settle_archive.sql)
RETURNING h.id, h.queue, h.type, h.payload, h.status, h.attempts, h.worker_id,
          h.lease_token, h.trace_parent,
          date_part('epoch', h.run_at) * 1000 AS run_at,
          date_part('epoch', h.created_at) * 1000 AS created_at, h.has_dependents
