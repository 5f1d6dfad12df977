-- Purpose: versions already recorded in the ledger.
-- Parameters: none
-- Locking: none; callers hold the migrate advisory lock.
-- Row: version int
SELECT version FROM :SCHEMA.schema_migrations ORDER BY version
