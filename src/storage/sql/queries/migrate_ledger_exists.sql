-- Purpose: whether the migration ledger exists (dry runs must not create it).
-- Parameters:
--   $1 schema: text — the schema's name
-- Locking: none (catalog read).
-- Row: present boolean
SELECT to_regclass(quote_ident($1::text) || '.schema_migrations') IS NOT NULL AS present
