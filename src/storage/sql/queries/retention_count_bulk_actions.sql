-- Purpose: how many bulk actions retention_bulk_actions.sql would purge now (the actions, not
--   their items; the preview of a rule).
-- Parameters:
--   $1 ageMs: bigint — the age in ms
--   $2 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: none (a read).
-- Returns: n.
-- Row: n bigint
SELECT count(*) AS n FROM :SCHEMA.bulk_actions
WHERE status <> 'running'
  AND coalesce(finished_at, expires_at) < :NOW - $1::bigint * interval '1 millisecond'
