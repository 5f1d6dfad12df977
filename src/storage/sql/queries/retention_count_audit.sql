-- Purpose: how many audit entries retention_audit.sql would purge now (the preview of a rule).
-- Parameters: $1 age in ms (bigint).
-- Locking: none (a read).
-- Returns: n.
SELECT count(*) AS n FROM :SCHEMA.operator_actions
WHERE at < now() - $1::bigint * interval '1 millisecond'
