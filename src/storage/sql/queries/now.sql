-- Purpose: the store clock (database time).
-- Parameters:
--   $1 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: none.
-- Row: now timestamptz
SELECT :CLOCK_NOW AS now
