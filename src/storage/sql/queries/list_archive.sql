-- Purpose: archived jobs, newest finished first, optionally of one queue.
-- Parameters:
--   $1 queue: text or NULL — the queue; NULL for all
--   $2 limit: int — most rows
-- Locking: none.
-- Row: as get_archive
SELECT *
FROM :SCHEMA.jobs_archive
WHERE ($1::text IS NULL OR queue = $1::text)
ORDER BY finished_at DESC, id DESC
LIMIT $2::int
