-- Purpose: metric buckets that start at or after a time, newest first; each bucket's shards
--   (schema 22) summed into one row.
-- Parameters:
--   $1 since: timestamptz — the first bucket
-- Locking: none.
-- Row: bucket_start timestamptz, queue text, outcome smallint, failure_reason smallint,
--   completed_count numeric, duration_count numeric, total_duration_ms float8,
--   max_duration_ms float8 or NULL
SELECT bucket_start, queue, outcome, failure_reason,
       sum(completed_count) AS completed_count, sum(duration_count) AS duration_count,
       sum(total_duration_ms) AS total_duration_ms, max(max_duration_ms) AS max_duration_ms
FROM :SCHEMA.metric_buckets
WHERE bucket_start >= $1::timestamptz
GROUP BY bucket_start, queue, outcome, failure_reason
ORDER BY bucket_start DESC, queue, outcome, failure_reason
