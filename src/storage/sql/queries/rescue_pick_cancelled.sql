-- Purpose: rescue step (c), selection: pending, scheduled or fetched rows that carry a cancel request (a
--   cancelled run that was retried or released before it ended). move_to_dlq moves them in the
--   same transaction.
-- Parameters:
--   $1 limit: int — most rows
-- Locking: FOR UPDATE SKIP LOCKED, oldest request first (the few candidates come from
--   jobs_hot_cancel_idx); held until the rescue transaction ends.
-- Returns: id, queue, type, status, cancel_requested_by.
-- Row: id text, queue text, type text, status smallint, cancel_requested_by text or NULL
SELECT h.id, h.queue, h.type, h.status, h.cancel_requested_by
FROM :SCHEMA.jobs_hot h
WHERE h.cancel_requested_at IS NOT NULL
  AND h.status IN (:PENDING, :SCHEDULED, :FETCHED)
ORDER BY h.cancel_requested_at, h.id
LIMIT $1::int
FOR UPDATE SKIP LOCKED
