-- Purpose: the schemas holding ChokaQ's tables (a ledger and the hot table), to name them when a
--   schema asked for is not migrated (a typo shows its neighbours).
-- Parameters: none
-- Locking: none (catalog read).
-- Row: schema text
SELECT n.nspname AS schema
  FROM pg_catalog.pg_class c
  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
 WHERE c.relname = 'schema_migrations'
   AND c.relkind = 'r'
   AND to_regclass(quote_ident(n.nspname) || '.jobs_hot') IS NOT NULL
 ORDER BY n.nspname
