-- Purpose: the operator audit trail, newest first by id (UUIDv7), paged by id.
-- Parameters: $1 most rows (int), $2 only ids below this one (text) or NULL.
-- Locking: none.
-- Returns: the rows.
SELECT * FROM :SCHEMA.operator_actions
WHERE $2::text IS NULL OR id < $2::text
ORDER BY id DESC
LIMIT $1::int
