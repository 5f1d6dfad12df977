-- ChokaQ schema, version 16: cheaper claims of keyed queues.
-- `:SCHEMA` is replaced by the quoted, validated schema name before this script runs.

-- The fetch index holds pending jobs without a concurrency key only. Pending keyed jobs were in
-- both fetch indexes; a claim of a keyed queue that looked for its jobs without a key then walked
-- every pending keyed job to find none (or, in the cached generic plan, read the whole hot
-- table), half the keyed claim's cost. Keyed jobs are found through jobs_hot_keyed_fetch_idx
-- alone now, so they also write one index entry less; jobs without a key write the same entries.
DROP INDEX IF EXISTS :SCHEMA.jobs_hot_fetch_idx;
CREATE INDEX IF NOT EXISTS jobs_hot_fetch_idx
  ON :SCHEMA.jobs_hot (queue, priority DESC, run_at, id)
  WHERE status = 0 AND concurrency_key IS NULL;

-- Claims of keyed jobs from a queue with key limits add 1 (claim_keyed.sql). A claim that locks
-- the queue's row inside its own statement compares the row's latest version (what the lock
-- returns) with the one its snapshot shows: equal, no claim of the queue committed since its
-- snapshot was taken, so the jobs it counts per key are exact without a transaction.
ALTER TABLE :SCHEMA.queues ADD COLUMN IF NOT EXISTS claim_seq bigint NOT NULL DEFAULT 0;
