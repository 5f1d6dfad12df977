-- ChokaQ schema, version 15: token buckets of rate limits (`defineJob({ rateLimit })`), one row
-- per bucket, shared by every process: a worker draws tokens before it starts rate-limited jobs,
-- and a handler's RateLimitedError blocks the bucket for everyone. Jobs carry nothing new: the
-- bucket is found from the job type and payload when the job is about to start.
-- `:SCHEMA` is replaced by the quoted, validated schema name before this script runs.
CREATE TABLE IF NOT EXISTS :SCHEMA.rate_buckets (
  name varchar(255) COLLATE "C" PRIMARY KEY,
  rate_limit integer NOT NULL CHECK (rate_limit > 0),
  per_ms bigint NOT NULL CHECK (per_ms > 0),
  tokens double precision NOT NULL,
  refilled_at timestamptz NOT NULL,
  blocked_until timestamptz,
  last_granted integer NOT NULL DEFAULT 0,
  granted_total bigint NOT NULL DEFAULT 0,
  throttled_total bigint NOT NULL DEFAULT 0
);
