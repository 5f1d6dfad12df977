-- ChokaQ schema, version 26: the awaiting jobs of each queue, counted for the queue gauges
-- (queue_gauges.sql, the `chokaq.queue.awaiting` metric) from the index alone, as scheduled rows
-- are on jobs_hot_scheduled_idx: without it the count read every awaiting row of the hot table
-- once a scrape. Partial, so plain jobs (never awaiting) add no entry to it.
-- `:SCHEMA` is replaced by the quoted, validated schema name before this script runs.
CREATE INDEX IF NOT EXISTS jobs_hot_awaiting_queue_idx
  ON :SCHEMA.jobs_hot (queue) WHERE status = 4;
