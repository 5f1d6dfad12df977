-- Purpose: DLQ error groups from the maintained summary (dlq_error_groups), never a scan of the
--   DLQ: counts, first and last seen, queues and types affected, and the most recent job of each
--   group as a sample (one index probe of jobs_dlq_fingerprint_idx per group returned).
-- Parameters:
--   $1 queues: text[] or NULL — queue names; NULL for all
--   $2 types: text[] or NULL — type keys; NULL for all
--   $3 limit: int — most groups
-- Locking: none (reads).
-- Returns: one row per group with jobs in the DLQ, largest first.
-- Row: fingerprint text, error_class text, message text, frame text or NULL, dead_count numeric,
--   first_seen timestamptz, last_seen timestamptz, queues text[], types text[],
--   sample_id text or NULL
SELECT g.fingerprint,
       min(g.error_class) AS error_class,
       min(g.message) AS message,
       min(g.frame) AS frame,
       sum(g.dead_count) AS dead_count,
       min(g.first_seen) AS first_seen,
       max(g.last_seen) AS last_seen,
       array_agg(DISTINCT g.queue) AS queues,
       array_agg(DISTINCT g.type) AS types,
       (SELECT d.id FROM :SCHEMA.jobs_dlq d
        WHERE d.fingerprint = g.fingerprint
          AND ($1::text[] IS NULL OR d.queue = ANY($1::text[]))
          AND ($2::text[] IS NULL OR d.type = ANY($2::text[]))
        ORDER BY d.failed_at DESC LIMIT 1) AS sample_id
FROM :SCHEMA.dlq_error_groups g
WHERE g.dead_count > 0
  AND ($1::text[] IS NULL OR g.queue = ANY($1::text[]))
  AND ($2::text[] IS NULL OR g.type = ANY($2::text[]))
GROUP BY g.fingerprint
ORDER BY sum(g.dead_count) DESC, g.fingerprint
LIMIT $3::int
