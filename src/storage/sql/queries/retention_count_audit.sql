-- Purpose: how many audit entries retention_audit.sql would purge now (the preview of a rule).
-- Parameters:
--   $1 ageMs: bigint — the age in ms
-- Locking: none (a read).
-- Returns: n.
-- Row: n bigint
SELECT count(*) AS n FROM :SCHEMA.operator_actions
WHERE at < now() - $1::bigint * interval '1 millisecond'
