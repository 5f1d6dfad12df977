-- Purpose: one archived job by id.
-- Parameters: $1 id (text).
-- Locking: none.
SELECT * FROM :SCHEMA.jobs_archive WHERE id = $1::text
