-- Purpose: forget a worker process that stopped.
-- Parameters:
--   $1 id: text — the worker's id
-- Locking: its row.
DELETE FROM :SCHEMA.workers WHERE id = $1::text
