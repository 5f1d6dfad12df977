-- Purpose: serialise migrators of one schema across processes.
-- Parameters:
--   $1 schema: text — the schema's name
-- Locking: transaction-scoped advisory lock, released at COMMIT or ROLLBACK.
SELECT pg_advisory_xact_lock(hashtext('chokaq.migrate.' || $1::text)) AS locked
