-- Purpose: retention, one bounded batch of expired metric buckets, the oldest first.
-- Parameters:
--   $1 ageMs: bigint — the age in ms
--   $2 limit: int — most rows
--   $3 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: FOR UPDATE SKIP LOCKED on the rows it deletes (never waits); its own short transaction.
-- Returns: n, the rows deleted.
-- Row: n bigint
WITH picked AS (
  SELECT bucket_start, queue, outcome, failure_reason, shard FROM :SCHEMA.metric_buckets
  WHERE bucket_start < :NOW - $1::bigint * interval '1 millisecond'
  ORDER BY bucket_start
  LIMIT $2::int
  FOR UPDATE SKIP LOCKED
), deleted AS (
  DELETE FROM :SCHEMA.metric_buckets b USING picked p
  WHERE (b.bucket_start, b.queue, b.outcome, b.failure_reason, b.shard)
      = (p.bucket_start, p.queue, p.outcome, p.failure_reason, p.shard)
  RETURNING 1
)
SELECT count(*) AS n FROM deleted
