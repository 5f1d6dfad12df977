-- Purpose: make sure one process rescues a schema at a time. Runs first in the rescue
--   transaction; when it returns false, another process is rescuing and this one does nothing.
-- Parameters:
--   $1 schema: text — the schema's name
-- Locking: transaction-scoped advisory lock, released at commit or rollback; never waits.
-- Row: locked boolean
SELECT pg_try_advisory_xact_lock(hashtext('chokaq.rescue.' || $1::text)) AS locked
