-- Purpose: hot jobs, newest first, optionally of one queue and one state.
-- Parameters:
--   $1 queue: text or NULL — the queue; NULL for all
--   $2 status: smallint or NULL — the status code; NULL for all
--   $3 limit: int — most rows
-- Locking: none.
-- Row: as get_hot
SELECT *
FROM :SCHEMA.jobs_hot
WHERE ($1::text IS NULL OR queue = $1::text)
  AND ($2::smallint IS NULL OR status = $2::smallint)
ORDER BY created_at DESC, id DESC
LIMIT $3::int
