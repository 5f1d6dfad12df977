-- Purpose: one archived job by id.
-- Parameters:
--   $1 id: text — the job's id
-- Locking: none.
SELECT * FROM :SCHEMA.jobs_archive WHERE id = $1::text
