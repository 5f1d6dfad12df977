-- Purpose: retention of batches (docs/workflows.md, "Batches"), one bounded batch: deletes the
--   batches none of whose members remains (every member finished and its row left the archive
--   or the DLQ: nothing can count again) and none of whose fired callbacks is still hot (it may
--   read its batch); with each, its callback jobs still awaiting, which can never fire, and the
--   events sent to them.
-- Parameters:
--   $1 limit: int — most batches
-- Locking: FOR UPDATE SKIP LOCKED on the batch rows (a settle holding one is skipped until the
--   next pass); its own short transaction.
-- Returns: n, the batches deleted.
-- Row: n bigint
WITH picked AS (
  SELECT b.id, b.on_success_id, b.on_complete_id, b.on_death_id
  FROM :SCHEMA.batches b
  WHERE b.succeeded + b.died + b.cancelled >= b.total
    AND NOT EXISTS (SELECT 1 FROM :SCHEMA.jobs_hot h WHERE h.batch_id = b.id)
    AND NOT EXISTS (SELECT 1 FROM :SCHEMA.jobs_archive a WHERE a.batch_id = b.id)
    AND NOT EXISTS (SELECT 1 FROM :SCHEMA.jobs_dlq d WHERE d.batch_id = b.id)
    AND NOT EXISTS (SELECT 1 FROM :SCHEMA.jobs_hot h
                    WHERE h.id IN (b.on_success_id, b.on_complete_id, b.on_death_id)
                      AND h.status <> :AWAITING)
  ORDER BY b.id
  LIMIT $1::int
  FOR UPDATE OF b SKIP LOCKED
),
unfired AS (
  DELETE FROM :SCHEMA.jobs_hot h
  USING picked p
  WHERE h.id IN (p.on_success_id, p.on_complete_id, p.on_death_id) AND h.status = :AWAITING
  RETURNING h.id
),
unfired_events AS (
  DELETE FROM :SCHEMA.job_events v USING unfired u WHERE v.job_id = u.id
),
deleted AS (
  DELETE FROM :SCHEMA.batches b USING picked p WHERE b.id = p.id RETURNING b.id
)
SELECT count(*) AS n FROM deleted
