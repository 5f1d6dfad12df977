-- Purpose: the store clock (database time).
-- Parameters: none.
-- Locking: none.
SELECT clock_timestamp() AS now
