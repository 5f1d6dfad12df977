-- Purpose: the store clock (database time).
-- Parameters: none
-- Locking: none.
-- Row: now timestamptz
SELECT clock_timestamp() AS now
