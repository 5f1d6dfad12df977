-- Purpose: create the migration ledger when missing (the migrator reads it before migration 1).
-- Parameters: none
-- Locking: none beyond the DDL's own; callers hold the migrate advisory lock.
CREATE TABLE IF NOT EXISTS :SCHEMA.schema_migrations (
  version integer PRIMARY KEY,
  name varchar(200) NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)
