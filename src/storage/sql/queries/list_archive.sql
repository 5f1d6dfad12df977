-- Purpose: archived jobs, newest finished first, optionally of one queue.
-- Parameters: $1 queue (text) or NULL, $2 limit (int).
-- Locking: none.
SELECT *
FROM :SCHEMA.jobs_archive
WHERE ($1::text IS NULL OR queue = $1::text)
ORDER BY finished_at DESC, id DESC
LIMIT $2::int
