-- Purpose: per queue (every queues row, ordered by name): hot counts by state, archive and DLQ
--   row counts, and the lifetime counters (0 when the queue never settled a job).
-- Parameters: none
-- Locking: none (one snapshot for all three tables).
-- Row: queue text, awaiting bigint, pending bigint, scheduled bigint, fetched bigint, processing bigint, archived bigint,
--   dead bigint, succeeded_total numeric, failed_total numeric, retried_total numeric,
--   last_activity_at timestamptz or NULL
SELECT q.name AS queue,
       coalesce(h.awaiting, 0) AS awaiting,
       coalesce(h.pending, 0) AS pending,
       coalesce(h.scheduled, 0) AS scheduled,
       coalesce(h.fetched, 0) AS fetched,
       coalesce(h.processing, 0) AS processing,
       coalesce(a.archived, 0) AS archived,
       coalesce(d.dead, 0) AS dead,
       coalesce(s.succeeded_total, 0) AS succeeded_total,
       coalesce(s.failed_total, 0) AS failed_total,
       coalesce(s.retried_total, 0) AS retried_total,
       s.last_activity_at
FROM :SCHEMA.queues q
LEFT JOIN (
  SELECT queue,
         count(*) FILTER (WHERE status = :AWAITING) AS awaiting,
         count(*) FILTER (WHERE status = :PENDING) AS pending,
         count(*) FILTER (WHERE status = :SCHEDULED) AS scheduled,
         count(*) FILTER (WHERE status = :FETCHED) AS fetched,
         count(*) FILTER (WHERE status = :PROCESSING) AS processing
  FROM :SCHEMA.jobs_hot
  GROUP BY queue
) h ON h.queue = q.name
LEFT JOIN (
  SELECT queue, count(*) AS archived FROM :SCHEMA.jobs_archive GROUP BY queue
) a ON a.queue = q.name
LEFT JOIN (
  SELECT queue, count(*) AS dead FROM :SCHEMA.jobs_dlq GROUP BY queue
) d ON d.queue = q.name
LEFT JOIN (
  SELECT queue, sum(succeeded_total) AS succeeded_total, sum(failed_total) AS failed_total,
         sum(retried_total) AS retried_total, max(last_activity_at) AS last_activity_at
  FROM :SCHEMA.stats_summary GROUP BY queue
) s ON s.queue = q.name
ORDER BY q.name
