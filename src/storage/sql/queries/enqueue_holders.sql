-- Purpose: ids of the hot rows holding the given idempotency keys (after an enqueue skipped them).
-- Parameters:
--   $1 keys: (text or NULL)[] — the idempotency keys
-- Locking: none (plain read; a fresh READ COMMITTED snapshot sees the holder's commit).
-- Row: idempotency_key text, id text
SELECT idempotency_key, id FROM :SCHEMA.jobs_hot WHERE idempotency_key = ANY($1::text[])
