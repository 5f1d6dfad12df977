-- ChokaQ schema, version 22: each queue's lifetime counters and metric buckets spread over 16
-- rows (shards), summed when read. Every settle upserts the counters of the queues it touches;
-- with one row per queue, concurrent settles (of several processes, or two rounds of one) took
-- turns on it, each holding it through its commit's WAL flush. A settle now writes the shard of
-- its own server session (`counter_shard()`, the backend's pid modulo 16), so two sessions
-- settling at once almost never touch the same row. The rows written so far become shard 0.
-- `:SCHEMA` is replaced by the quoted, validated schema name before this script runs.
ALTER TABLE :SCHEMA.stats_summary ADD COLUMN shard smallint NOT NULL DEFAULT 0;
ALTER TABLE :SCHEMA.stats_summary DROP CONSTRAINT stats_summary_pkey;
ALTER TABLE :SCHEMA.stats_summary ADD CONSTRAINT stats_summary_pkey PRIMARY KEY (queue, shard);

ALTER TABLE :SCHEMA.metric_buckets ADD COLUMN shard smallint NOT NULL DEFAULT 0;
ALTER TABLE :SCHEMA.metric_buckets DROP CONSTRAINT metric_buckets_pkey;
ALTER TABLE :SCHEMA.metric_buckets
  ADD CONSTRAINT metric_buckets_pkey PRIMARY KEY (bucket_start, queue, outcome, failure_reason, shard);

-- The shard a statement of this session writes; stable within a statement (inlined).
CREATE FUNCTION :SCHEMA.counter_shard() RETURNS smallint
  LANGUAGE sql STABLE PARALLEL SAFE
  AS 'SELECT (pg_backend_pid() % 16)::smallint';
