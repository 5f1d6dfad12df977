-- Purpose: persist a cancel request on processing jobs that have none yet; the first requester is
--   kept. The owner sees it at its next heartbeat.
-- Parameters:
--   $1 ids: text[] — the running jobs to ask
--   $2 actor: text — who asks
-- Locking: row locks on the updated hot rows (already held by cancel_lock).
-- Returns: id of each row that received the request.
UPDATE :SCHEMA.jobs_hot h
SET cancel_requested_at = now(),
    cancel_requested_by = $2::text,
    updated_at = now()
WHERE h.id = ANY($1::text[])
  AND h.status = :PROCESSING
  AND h.cancel_requested_at IS NULL
RETURNING h.id
