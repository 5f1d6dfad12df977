-- ChokaQ schema, version 4: fewer indexes on the hot table.
-- Every claim, start and settle rewrites a hot row, and a row whose status changes gets a new
-- entry in every index on the table. Active rows (fetched + processing) are few — bounded by the
-- workers' concurrency and prefetch — so one partial index over them serves the maxWorkers room
-- count, per-queue active counts and the rescue scans of stale claims and zombies (a full scan
-- of that small index), replacing three indexes that were written on every state change.

CREATE INDEX IF NOT EXISTS jobs_hot_active_idx
  ON :SCHEMA.jobs_hot (queue, status) WHERE status IN (1, 2);

DROP INDEX IF EXISTS :SCHEMA.jobs_hot_queue_status_idx;
DROP INDEX IF EXISTS :SCHEMA.jobs_hot_fetched_idx;
DROP INDEX IF EXISTS :SCHEMA.jobs_hot_alive_idx;
