-- Purpose: one hot job by id.
-- Parameters: $1 id (text).
-- Locking: none.
SELECT * FROM :SCHEMA.jobs_hot WHERE id = $1::text
