-- Purpose: the operator audit trail, newest first in the order the database recorded it (seq),
--   paged by the id of the last entry of the previous page.
-- Parameters:
--   $1 limit: int — most rows
--   $2 beforeId: text or NULL — only entries recorded before the one with this id; an id no longer
--     there (retention removed it) reads as the end of the trail
-- Locking: none.
-- Returns: the rows.
-- Row: as audit_insert
SELECT * FROM :SCHEMA.operator_actions
WHERE $2::text IS NULL
   OR seq < (SELECT seq FROM :SCHEMA.operator_actions WHERE id = $2::text)
ORDER BY seq DESC
LIMIT $1::int
