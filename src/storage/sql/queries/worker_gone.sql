-- Purpose: forget a worker process that stopped.
-- Parameters: $1 id (text).
-- Locking: its row.
DELETE FROM :SCHEMA.workers WHERE id = $1::text
