-- Purpose: every known queue with its controls, ordered by name.
-- Parameters: none
-- Locking: none.
-- Row: name text, is_paused boolean, is_active boolean, max_workers int or NULL,
--   zombie_timeout_seconds int or NULL, keep_succeeded boolean, updated_at timestamptz
SELECT * FROM :SCHEMA.queues ORDER BY name
