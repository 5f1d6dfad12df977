-- Purpose: create the schema when missing.
-- Parameters: none
-- Locking: none beyond the DDL's own; callers hold the migrate advisory lock, which also keeps
--   concurrent migrators from racing on the catalog row.
CREATE SCHEMA IF NOT EXISTS :SCHEMA
