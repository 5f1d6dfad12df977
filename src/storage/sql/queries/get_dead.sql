-- Purpose: one DLQ job by id.
-- Parameters: $1 id (text).
-- Locking: none.
SELECT * FROM :SCHEMA.jobs_dlq WHERE id = $1::text
