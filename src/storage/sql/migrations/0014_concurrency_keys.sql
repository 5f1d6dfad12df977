-- ChokaQ schema, version 14: concurrency keys. A job may carry a key (a tenant, a customer) and
-- a limit: at most that many jobs of one key in one queue are fetched or processing at a time,
-- exact across processes (claim.sql). Jobs without a key (the common case) leave both NULL and
-- enter neither index below: their enqueue, claim and settle write the same entries as before.
-- The DLQ keeps key and limit so a resurrected job is limited again; the archive needs neither.
-- `:SCHEMA` is replaced by the quoted, validated schema name before this script runs.
ALTER TABLE :SCHEMA.jobs_hot ADD COLUMN IF NOT EXISTS concurrency_key varchar(255) COLLATE "C";
ALTER TABLE :SCHEMA.jobs_hot ADD COLUMN IF NOT EXISTS concurrency_limit integer
  CHECK (concurrency_limit IS NULL OR concurrency_limit > 0);
ALTER TABLE :SCHEMA.jobs_dlq ADD COLUMN IF NOT EXISTS concurrency_key varchar(255) COLLATE "C";
ALTER TABLE :SCHEMA.jobs_dlq ADD COLUMN IF NOT EXISTS concurrency_limit integer;

-- The keyed claim: the keys with pending jobs of a queue (a skip scan) and each key's line in
-- claim order.
CREATE INDEX IF NOT EXISTS jobs_hot_keyed_fetch_idx
  ON :SCHEMA.jobs_hot (queue, concurrency_key, priority DESC, run_at, id)
  WHERE status = 0 AND concurrency_key IS NOT NULL;
-- Queues with pending jobs that carry a limit: their claims must lock the queue first.
CREATE INDEX IF NOT EXISTS jobs_hot_limited_idx
  ON :SCHEMA.jobs_hot (queue) WHERE status = 0 AND concurrency_limit IS NOT NULL;
-- Fetched + processing jobs per key: the room a key has left.
CREATE INDEX IF NOT EXISTS jobs_hot_keyed_active_idx
  ON :SCHEMA.jobs_hot (queue, concurrency_key)
  WHERE status IN (1, 2) AND concurrency_key IS NOT NULL;
