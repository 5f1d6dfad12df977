-- Purpose: one archived job by id.
-- Parameters:
--   $1 id: text — the job's id
-- Locking: none.
-- Row: id text, queue text, type text, payload text or NULL, tags text or NULL, attempts int,
--   worker_id text or NULL, created_by text or NULL, last_modified_by text or NULL,
--   created_at timestamptz, started_at timestamptz or NULL, finished_at timestamptz,
--   duration_ms float8 or NULL, lost_attempts int, note text or NULL, history jsonb or NULL,
--   result text or NULL, concurrency_key text or NULL
SELECT * FROM :SCHEMA.jobs_archive WHERE id = $1::text
