-- Purpose: per queue (every queues row, ordered by name): its controls, waiting jobs due now
--   (pending, and scheduled ones the promoter has not moved yet) and due later (scheduled), fetched and processing jobs, DLQ size, when the longest-waiting due
--   job became due, and its lifetime totals (its stats_summary shards, summed). For metrics scrapes and health checks, so it never reads the archive: pending rows are
--   counted on jobs_hot_fetch_idx (jobs without a concurrency key) and jobs_hot_keyed_fetch_idx,
--   active ones on jobs_hot_active_idx, the DLQ from the error-group summary. The oldest due job
--   without a key is found without reading every pending row: per queue, a walk over the distinct
--   priorities of the fetch index (one probe per priority), then the first run_at of each
--   priority; of keyed jobs, the least run_at of the keyed fetch index (every pending keyed entry
--   of the queue, index only). Scheduled rows are counted on jobs_hot_scheduled_idx (index only),
--   awaiting ones (jobs waiting for their dependencies) on jobs_hot_awaiting_queue_idx.
-- Parameters:
--   $1 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: none (reads).
-- Row: queue text, paused boolean, active boolean, due bigint, scheduled bigint, awaiting bigint,
--   fetched bigint,
--   processing bigint, dead numeric, oldest_due_at timestamptz or NULL, succeeded_total numeric,
--   failed_total numeric, read_at timestamptz
WITH pending AS (
  SELECT queue, count(*) FILTER (WHERE scheduled = 0 OR run_at <= :NOW) AS due,
         count(*) FILTER (WHERE scheduled = 1 AND run_at > :NOW) AS scheduled,
         min(run_at) FILTER (WHERE scheduled = 1) AS first_scheduled_at
  FROM (SELECT queue, run_at, 0 AS scheduled FROM :SCHEMA.jobs_hot
        WHERE status = :PENDING AND concurrency_key IS NULL
        UNION ALL
        SELECT queue, run_at, 0 FROM :SCHEMA.jobs_hot
        WHERE status = :PENDING AND concurrency_key IS NOT NULL
        UNION ALL
        SELECT queue, run_at, 1 FROM :SCHEMA.jobs_hot
        WHERE status = :SCHEDULED) p
  GROUP BY queue
),
awaiting AS (
  SELECT queue, count(*) AS awaiting
  FROM :SCHEMA.jobs_hot
  WHERE status = :AWAITING
  GROUP BY queue
),
active AS (
  SELECT queue, count(*) FILTER (WHERE status = :FETCHED) AS fetched,
         count(*) FILTER (WHERE status = :PROCESSING) AS processing
  FROM :SCHEMA.jobs_hot
  WHERE status IN (:FETCHED, :PROCESSING)
  GROUP BY queue
),
dead AS (
  SELECT queue, sum(dead_count) AS dead FROM :SCHEMA.dlq_error_groups GROUP BY queue
)
SELECT q.name AS queue, q.is_paused AS paused, q.is_active AS active, coalesce(p.due, 0) AS due, coalesce(p.scheduled, 0) AS scheduled,
       coalesce(w.awaiting, 0) AS awaiting,
       coalesce(a.fetched, 0) AS fetched, coalesce(a.processing, 0) AS processing,
       coalesce(d.dead, 0) AS dead,
       CASE WHEN least(o.first_run_at, p.first_scheduled_at) <= :NOW
            THEN least(o.first_run_at, p.first_scheduled_at) END AS oldest_due_at,
       coalesce(s.succeeded_total, 0) AS succeeded_total,
       coalesce(s.failed_total, 0) AS failed_total,
       :NOW AS read_at
FROM :SCHEMA.queues q
LEFT JOIN (
  SELECT queue, sum(succeeded_total) AS succeeded_total, sum(failed_total) AS failed_total
  FROM :SCHEMA.stats_summary GROUP BY queue
) s ON s.queue = q.name
LEFT JOIN pending p ON p.queue = q.name
LEFT JOIN awaiting w ON w.queue = q.name
LEFT JOIN active a ON a.queue = q.name
LEFT JOIN dead d ON d.queue = q.name
LEFT JOIN LATERAL (
  WITH RECURSIVE levels(priority) AS (
    (SELECT h.priority FROM :SCHEMA.jobs_hot h
     WHERE h.queue = q.name AND h.status = :PENDING AND h.concurrency_key IS NULL
     ORDER BY h.priority DESC LIMIT 1)
    UNION ALL
    SELECT (SELECT h.priority FROM :SCHEMA.jobs_hot h
            WHERE h.queue = q.name AND h.status = :PENDING AND h.concurrency_key IS NULL
              AND h.priority < l.priority
            ORDER BY h.priority DESC LIMIT 1)
    FROM levels l
    WHERE l.priority IS NOT NULL
  )
  SELECT least(min((SELECT h.run_at FROM :SCHEMA.jobs_hot h
                    WHERE h.queue = q.name AND h.status = :PENDING AND h.concurrency_key IS NULL
                      AND h.priority = l.priority
                    ORDER BY h.run_at LIMIT 1)),
               (SELECT min(h.run_at) FROM :SCHEMA.jobs_hot h
                WHERE h.queue = q.name AND h.status = :PENDING
                  AND h.concurrency_key IS NOT NULL)) AS first_run_at
  FROM levels l
  WHERE l.priority IS NOT NULL
) o ON true
ORDER BY q.name
