-- Purpose: persist a cancel request on processing jobs that have none yet; the first requester is
--   kept. The owner sees it at its next heartbeat.
-- Parameters:
--   $1 ids: text[] — the running jobs to ask
--   $2 actor: text — who asks
--   $3 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: row locks on the updated hot rows (already held by cancel_lock).
-- Returns: id of each row that received the request.
UPDATE :SCHEMA.jobs_hot h
SET cancel_requested_at = :NOW,
    cancel_requested_by = $2::text,
    updated_at = :NOW
WHERE h.id = ANY($1::text[])
  AND h.status = :PROCESSING
  AND h.cancel_requested_at IS NULL
RETURNING h.id
