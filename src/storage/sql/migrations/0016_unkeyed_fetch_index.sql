-- ChokaQ schema, version 16: the fetch index holds pending jobs without a concurrency key only.
-- Pending keyed jobs were in both fetch indexes; a claim of a keyed queue that looked for its jobs
-- without a key then walked every pending keyed job to find none (or, in the cached generic
-- plan, read the whole hot table), which was half the keyed claim's cost. Keyed jobs are found
-- through jobs_hot_keyed_fetch_idx alone now, so they also write one index entry less; jobs
-- without a key write the same entries as before.
-- `:SCHEMA` is replaced by the quoted, validated schema name before this script runs.
DROP INDEX IF EXISTS :SCHEMA.jobs_hot_fetch_idx;
CREATE INDEX IF NOT EXISTS jobs_hot_fetch_idx
  ON :SCHEMA.jobs_hot (queue, priority DESC, run_at, id)
  WHERE status = 0 AND concurrency_key IS NULL;
