-- Purpose: bulk actions, newest first.
-- Parameters:
--   $1 limit: int — most rows
-- Locking: none.
-- Returns: the rows.
-- Row: as bulk_get
SELECT * FROM :SCHEMA.bulk_actions ORDER BY created_at DESC, id DESC LIMIT $1::int
