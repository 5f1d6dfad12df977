-- Fragment: the batch counters of a statement that moves jobs (docs/workflows.md, "Batches"),
--   shared by the settles (archive_moved.sql), move_to_dlq.sql and resurrect.sql (included where
--   they write `:INCLUDE batch_counted`, after their last CTE). Expects a CTE `batch_moved`
--   (batch_id, succeeded, died, cancelled): one row per moved member, each count its change (+1
--   out of the hot table, −1 back into it). A statement that moved no member reads no batch row.
-- Each batch's row is updated once, by the sum of its changes (in the join's order: two
--   statements that move members of the same batches may deadlock, and the store retries a
--   deadlock, so nothing is counted twice or lost); the callbacks
--   the new counts make due are stamped fired, and their jobs move awaiting → pending (or
--   scheduled, until a delay they were enqueued with passes), in the same statement:
--   - success: every member succeeded; - complete: every member finished (succeeded, died or
--   cancelled); - death: a member died (not cancelled).
--   Each fired callback's queue is woken by a NOTIFY that PostgreSQL delivers at the commit (once
--   per queue: identical notifications of one transaction are folded), so a worker claims it at
--   once, not at its next poll. Only a statement that fires takes the server's notify lock.
-- Exactly once: the batch row's lock orders concurrent movers (the second reads the first's
--   counts), a fired stamp is never cleared, and a callback job moves only while it is awaiting.
, batch_changes AS (
  SELECT batch_id, sum(succeeded)::int AS succeeded, sum(died)::int AS died,
         sum(cancelled)::int AS cancelled
  FROM batch_moved
  WHERE batch_id IS NOT NULL
  GROUP BY batch_id
),
batch_counted AS (
  UPDATE :SCHEMA.batches b
  SET succeeded = b.succeeded + c.succeeded,
      died = b.died + c.died,
      cancelled = b.cancelled + c.cancelled,
      success_fired_at = CASE
        WHEN b.success_fired_at IS NULL AND b.on_success_id IS NOT NULL
             AND b.succeeded + c.succeeded >= b.total THEN :NOW
        ELSE b.success_fired_at END,
      complete_fired_at = CASE
        WHEN b.complete_fired_at IS NULL AND b.on_complete_id IS NOT NULL
             AND b.succeeded + c.succeeded + b.died + c.died + b.cancelled + c.cancelled >= b.total
          THEN :NOW
        ELSE b.complete_fired_at END,
      death_fired_at = CASE
        WHEN b.death_fired_at IS NULL AND b.on_death_id IS NOT NULL AND c.died > 0 THEN :NOW
        ELSE b.death_fired_at END
  FROM (SELECT * FROM batch_changes ORDER BY batch_id) c
  WHERE b.id = c.batch_id
  RETURNING b.on_success_id, b.on_complete_id, b.on_death_id, b.success_fired_at,
            b.complete_fired_at, b.death_fired_at
),
batch_fired AS (
  UPDATE :SCHEMA.jobs_hot h
  SET status = CASE WHEN h.run_at > :NOW THEN :SCHEDULED ELSE :PENDING END
  WHERE h.status = :AWAITING
    AND h.id IN (SELECT on_success_id FROM batch_counted WHERE success_fired_at IS NOT NULL
                 UNION ALL
                 SELECT on_complete_id FROM batch_counted WHERE complete_fired_at IS NOT NULL
                 UNION ALL
                 SELECT on_death_id FROM batch_counted WHERE death_fired_at IS NOT NULL)
  -- Evaluated for each row even though no part of the statement reads batch_fired.
  RETURNING h.id, pg_notify(:WAKE_CHANNEL, h.queue)
)
