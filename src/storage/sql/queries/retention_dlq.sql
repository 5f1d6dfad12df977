-- Purpose: retention, one bounded batch of expired DLQ rows (oldest failed_at first, only of the
--   rule's queue or not of its excepted queues), taken out of their error groups in the same
--   statement as purge_dead.sql does; also error groups left empty that saw no failure within
--   the age, and trend hours past the 49 that move_to_dlq.sql keeps.
-- Parameters:
--   $1 ageMs: bigint — the age in ms
--   $2 limit: int — most rows
--   $3 queue: text or NULL — the rule's queue; NULL: any
--   $4 exceptQueues: text[] or NULL — the rule's excepted queues; NULL: none
--   $5 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: FOR UPDATE SKIP LOCKED on the rows it deletes (never waits); its own short transaction.
-- Returns: n, the DLQ rows deleted.
-- Row: n bigint
WITH picked AS (
  SELECT id FROM :SCHEMA.jobs_dlq
  WHERE failed_at < :NOW - $1::bigint * interval '1 millisecond'
    AND ($3::text IS NULL OR queue = $3::text)
    AND ($4::text[] IS NULL OR queue <> ALL($4::text[]))
  ORDER BY failed_at
  LIMIT $2::int
  FOR UPDATE SKIP LOCKED
), deleted AS (
  DELETE FROM :SCHEMA.jobs_dlq d USING picked p WHERE d.id = p.id
  RETURNING d.id, d.fingerprint, d.queue, d.type
), ungrouped AS (
  UPDATE :SCHEMA.dlq_error_groups g
  SET dead_count = greatest(g.dead_count - d.n, 0)
  FROM (SELECT fingerprint, queue, type, count(*) AS n FROM deleted
        GROUP BY fingerprint, queue, type ORDER BY fingerprint, queue, type) d
  WHERE g.fingerprint = d.fingerprint AND g.queue = d.queue AND g.type = d.type
), emptied AS (
  -- Groups that earlier purges or resurrections left empty and that saw no failure within the
  -- age: nothing left to show. A failure arriving meanwhile makes the row fail the re-check
  -- under its lock (or holds the lock: skipped) and keeps it.
  DELETE FROM :SCHEMA.dlq_error_groups g
  USING (SELECT e.fingerprint, e.queue, e.type FROM :SCHEMA.dlq_error_groups e
         WHERE e.dead_count = 0
           AND e.last_seen < :NOW - $1::bigint * interval '1 millisecond'
           AND ($3::text IS NULL OR e.queue = $3::text)
           AND ($4::text[] IS NULL OR e.queue <> ALL($4::text[]))
         LIMIT $2::int
         FOR UPDATE OF e SKIP LOCKED) x
  WHERE g.fingerprint = x.fingerprint AND g.queue = x.queue AND g.type = x.type
), old_hours AS (
  -- Trend hours past what move_to_dlq.sql keeps (49 hours), of groups that stopped failing.
  DELETE FROM :SCHEMA.dlq_error_group_hours h
  USING (SELECT o.fingerprint, o.hour_start FROM :SCHEMA.dlq_error_group_hours o
         WHERE o.hour_start < :NOW - interval '49 hours'
         LIMIT $2::int
         FOR UPDATE OF o SKIP LOCKED) x
  WHERE h.fingerprint = x.fingerprint AND h.hour_start = x.hour_start
)
:INCLUDE deleted_leftovers
SELECT count(*) AS n FROM deleted
