-- Purpose: metric buckets that start at or after a time, newest first.
-- Parameters: $1 since (timestamptz).
-- Locking: none.
SELECT *
FROM :SCHEMA.metric_buckets
WHERE bucket_start >= $1::timestamptz
ORDER BY bucket_start DESC, queue, outcome, failure_reason
