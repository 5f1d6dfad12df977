-- Purpose: one bulk action.
-- Parameters:
--   $1 id: text — the bulk action's id
-- Locking: none.
-- Returns: the row, if any.
SELECT * FROM :SCHEMA.bulk_actions WHERE id = $1::text
