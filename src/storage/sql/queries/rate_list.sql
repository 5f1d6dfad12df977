-- Purpose: the rate buckets for operators, most throttled first.
-- Parameters:
--   $1 limit: int — most rows
--   $2 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: none.
-- Returns: name, rate_limit, per_ms, tokens, blocked_until (NULL when not blocked now),
--   granted_total, throttled_total, refilled_at.
-- Row: name text, rate_limit int, per_ms bigint, tokens float8, blocked_until timestamptz or NULL,
--   granted_total bigint, throttled_total bigint, refilled_at timestamptz
SELECT name, rate_limit, per_ms, tokens,
       CASE WHEN blocked_until > :NOW THEN blocked_until END AS blocked_until,
       granted_total, throttled_total, refilled_at
FROM :SCHEMA.rate_buckets
ORDER BY throttled_total DESC, name
LIMIT $1::int
