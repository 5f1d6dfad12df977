-- Purpose: the lease gate: fetched → processing for every lease still held; attempts + 1.
-- Parameters (parallel arrays): $1 id text[], $2 worker id text[], $3 lease token text[].
-- Locking: row locks on the matched hot rows (UPDATE).
-- Returns: the started rows.
UPDATE :SCHEMA.jobs_hot h
SET status = :PROCESSING,
    attempts = h.attempts + 1,
    started_at = now(),
    heartbeat_at = now(),
    updated_at = now()
FROM unnest($1::text[], $2::text[], $3::text[]) AS l(id, worker_id, lease_token)
WHERE h.id = l.id
  AND h.worker_id = l.worker_id
  AND h.lease_token = l.lease_token
  AND h.status = :FETCHED
RETURNING h.*
