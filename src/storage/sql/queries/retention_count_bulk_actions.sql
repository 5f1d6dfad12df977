-- Purpose: how many bulk actions retention_bulk_actions.sql would purge now (the actions, not
--   their items; the preview of a rule).
-- Parameters:
--   $1 ageMs: bigint — the age in ms
-- Locking: none (a read).
-- Returns: n.
-- Row: n bigint
SELECT count(*) AS n FROM :SCHEMA.bulk_actions
WHERE status <> 'running'
  AND coalesce(finished_at, expires_at) < now() - $1::bigint * interval '1 millisecond'
