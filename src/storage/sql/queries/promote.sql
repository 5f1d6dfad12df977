-- Purpose: the promoter's pass: scheduled jobs whose run_at came move to pending, where claims
--   find them (jobs_hot_fetch_idx and the keyed fetch indexes hold pending rows only). Oldest due
--   first, at most $1 rows; the row keeps its run_at (claim order among due jobs is unchanged),
--   updated_at and changed_at (a bulk action previewed before still applies). Also reads when
--   the next scheduled job is due, so the promoter sleeps until then.
-- Parameters:
--   $1 limit: int — most rows
--   $2 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: FOR UPDATE SKIP LOCKED on the due rows read off jobs_hot_scheduled_idx (a range
--   scan that stops at the first row not yet due), in run_at order; one statement, so no lock
--   outlives it, and promoters of other processes take the rows this one skips.
-- Returns: one row per queue with promoted jobs (queue, promoted), or one row with a NULL queue
--   when none moved; every row carries next_run_at (epoch ms, float8, of the first scheduled row
--   this pass did not move, which may be due already; NULL: none) and read_at (the database clock, epoch ms).
-- Row: queue text or NULL, promoted bigint, next_run_at float8 or NULL, read_at float8
WITH due AS (
  SELECT h.id
  FROM :SCHEMA.jobs_hot h
  WHERE h.status = :SCHEDULED AND h.run_at <= :NOW
  ORDER BY h.run_at, h.id
  LIMIT $1::int
  FOR UPDATE SKIP LOCKED
),
promoted AS (
  UPDATE :SCHEMA.jobs_hot h
  SET status = :PENDING
  WHERE h.id = ANY(ARRAY(SELECT id FROM due))
  RETURNING h.queue
),
counts AS (
  SELECT queue, count(*) AS promoted FROM promoted GROUP BY queue
),
-- The statement's snapshot still shows the promoted rows as scheduled: the next one due is the
-- first row of the index that this pass did not take (a due one left over past the limit, or
-- held by another transaction, or the first one due later).
next AS (
  SELECT (SELECT h.run_at
          FROM :SCHEMA.jobs_hot h
          WHERE h.status = :SCHEDULED AND h.id <> ALL(ARRAY(SELECT id FROM due))
          ORDER BY h.run_at, h.id
          LIMIT 1) AS next_run_at
)
SELECT c.queue, coalesce(c.promoted, 0) AS promoted,
       date_part('epoch', n.next_run_at) * 1000 AS next_run_at,
       date_part('epoch', :NOW) * 1000 AS read_at
FROM next n
LEFT JOIN counts c ON true
ORDER BY c.queue
