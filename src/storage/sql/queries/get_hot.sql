-- Purpose: one hot job by id.
-- Parameters:
--   $1 id: text — the job's id
-- Locking: none.
SELECT * FROM :SCHEMA.jobs_hot WHERE id = $1::text
