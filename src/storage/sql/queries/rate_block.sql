-- Purpose: block the rate bucket $1 for $4 ms from now: draws get nothing until then (a longer
--   block in place stays). Makes the bucket, full, if missing, with $2 tokens per $3 ms.
-- Parameters:
--   $1 name: text — the bucket's name
--   $2 limit: int — its limit
--   $3 perMs: bigint — its interval in ms
--   $4 forMs: float8 — the block's length in ms
--   $5 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: the bucket's row.
-- Returns: nothing.
INSERT INTO :SCHEMA.rate_buckets AS b (name, rate_limit, per_ms, tokens, refilled_at,
                                       blocked_until)
VALUES ($1::text, $2::int, $3::bigint, $2::int, :NOW,
        :NOW + $4::float8 * interval '1 millisecond')
ON CONFLICT (name) DO UPDATE SET
  blocked_until = greatest(b.blocked_until, EXCLUDED.blocked_until)
