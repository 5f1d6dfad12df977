-- Purpose: draw up to $4 tokens from the rate bucket $1 (token bucket: $2 tokens per $3 ms, at
--   most $2 kept; a new bucket starts full). Nothing is granted while the bucket is blocked.
--   The bucket takes the draw's limit and interval. Time is the statement's start, never earlier
--   than the bucket's last refill (a draw that waited for the row lock gets no refill for the
--   wait: never more tokens than the rate allows).
-- Parameters:
--   $1 name: text — the bucket's name
--   $2 limit: int — its limit
--   $3 perMs: bigint — its interval in ms
--   $4 count: int — the tokens wanted
--   $5 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: the bucket's row (INSERT … ON CONFLICT DO UPDATE locks it and computes from its
--   latest committed version, so concurrent draws never grant the same token twice). Every SET
--   expression reads the row as it was before this draw: `refilled` and `granted` are spelt out
--   in each.
-- Returns: granted (int), and wait_ms (float8): when not all were granted, ms until the next
--   token or the end of the block.
-- Row: granted int, wait_ms numeric
INSERT INTO :SCHEMA.rate_buckets AS b (name, rate_limit, per_ms, tokens, refilled_at,
                                       last_granted, granted_total, throttled_total)
VALUES ($1::text, $2::int, $3::bigint, $2::int - least($4::int, $2::int), :STATEMENT_NOW,
        least($4::int, $2::int), least($4::int, $2::int),
        CASE WHEN $4::int > $2::int THEN 1 ELSE 0 END) -- a first draw past the burst is refused too
ON CONFLICT (name) DO UPDATE SET
  rate_limit = EXCLUDED.rate_limit,
  per_ms = EXCLUDED.per_ms,
  -- refilled − granted
  tokens = least(EXCLUDED.rate_limit::float8, b.tokens + extract(epoch FROM greatest(b.refilled_at, :STATEMENT_NOW) - b.refilled_at) * 1000 * EXCLUDED.rate_limit / EXCLUDED.per_ms)
    - CASE WHEN b.blocked_until > greatest(b.refilled_at, :STATEMENT_NOW) THEN 0 ELSE least($4::int, floor(least(EXCLUDED.rate_limit::float8, b.tokens + extract(epoch FROM greatest(b.refilled_at, :STATEMENT_NOW) - b.refilled_at) * 1000 * EXCLUDED.rate_limit / EXCLUDED.per_ms))::int) END,
  refilled_at = greatest(b.refilled_at, :STATEMENT_NOW),
  last_granted = CASE WHEN b.blocked_until > greatest(b.refilled_at, :STATEMENT_NOW) THEN 0 ELSE least($4::int, floor(least(EXCLUDED.rate_limit::float8, b.tokens + extract(epoch FROM greatest(b.refilled_at, :STATEMENT_NOW) - b.refilled_at) * 1000 * EXCLUDED.rate_limit / EXCLUDED.per_ms))::int) END,
  granted_total = b.granted_total + CASE WHEN b.blocked_until > greatest(b.refilled_at, :STATEMENT_NOW) THEN 0 ELSE least($4::int, floor(least(EXCLUDED.rate_limit::float8, b.tokens + extract(epoch FROM greatest(b.refilled_at, :STATEMENT_NOW) - b.refilled_at) * 1000 * EXCLUDED.rate_limit / EXCLUDED.per_ms))::int) END,
  throttled_total = b.throttled_total + CASE WHEN CASE WHEN b.blocked_until > greatest(b.refilled_at, :STATEMENT_NOW) THEN 0 ELSE least($4::int, floor(least(EXCLUDED.rate_limit::float8, b.tokens + extract(epoch FROM greatest(b.refilled_at, :STATEMENT_NOW) - b.refilled_at) * 1000 * EXCLUDED.rate_limit / EXCLUDED.per_ms))::int) END < $4::int THEN 1 ELSE 0 END
RETURNING last_granted AS granted,
  CASE WHEN last_granted >= $4::int THEN 0
       ELSE greatest(coalesce(extract(epoch FROM blocked_until - refilled_at) * 1000, 0),
                     (1 - tokens) * per_ms / rate_limit)
  END AS wait_ms
