-- Purpose: DLQ jobs, newest failed first, optionally of one queue and one failure reason.
-- Parameters:
--   $1 queue: text or NULL — the queue; NULL for all
--   $2 reason: smallint or NULL — the failure reason code; NULL for all
--   $3 limit: int — most rows
-- Locking: none.
-- Row: as get_dead
SELECT *
FROM :SCHEMA.jobs_dlq
WHERE ($1::text IS NULL OR queue = $1::text)
  AND ($2::smallint IS NULL OR failure_reason = $2::smallint)
ORDER BY failed_at DESC, id DESC
LIMIT $3::int
