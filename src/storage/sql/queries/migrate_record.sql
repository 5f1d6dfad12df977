-- Purpose: record one applied migration, in the same transaction as its script.
-- Parameters:
--   $1 version: int — the migration's version
--   $2 name: text — its name
-- Locking: row insert; callers hold the migrate advisory lock.
INSERT INTO :SCHEMA.schema_migrations (version, name, applied_at) VALUES ($1::int, $2::text, now())
