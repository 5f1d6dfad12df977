-- Purpose: the failure inbox's trend: dead jobs per hour of each given error group since an
--   hour, from the maintained dlq_error_group_hours (a primary-key range per group: at most one
--   row per group and hour), never a scan of the DLQ.
-- Parameters:
--   $1 fingerprints: text[] — the groups
--   $2 since: timestamptz — the first hour (a whole hour)
-- Locking: none (reads).
-- Returns: fingerprint, hour_start, dead_count of each hour with dead jobs, oldest first.
-- Row: fingerprint text, hour_start timestamptz, dead_count bigint
SELECT fingerprint, hour_start, dead_count
FROM :SCHEMA.dlq_error_group_hours
WHERE fingerprint = ANY($1::text[])
  AND hour_start >= $2::timestamptz
ORDER BY fingerprint, hour_start
