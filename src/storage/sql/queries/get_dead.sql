-- Purpose: one DLQ job by id.
-- Parameters:
--   $1 id: text — the job's id
-- Locking: none.
SELECT * FROM :SCHEMA.jobs_dlq WHERE id = $1::text
