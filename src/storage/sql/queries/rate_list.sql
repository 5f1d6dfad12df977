-- Purpose: the rate buckets for operators, most throttled first.
-- Parameters: $1 most rows (int).
-- Locking: none.
-- Returns: name, rate_limit, per_ms, tokens, blocked_until (NULL when not blocked now),
--   granted_total, throttled_total, refilled_at.
SELECT name, rate_limit, per_ms, tokens,
       CASE WHEN blocked_until > now() THEN blocked_until END AS blocked_until,
       granted_total, throttled_total, refilled_at
FROM :SCHEMA.rate_buckets
ORDER BY throttled_total DESC, name
LIMIT $1::int
