-- Purpose: retention of ended bulk actions: the items of expired actions first, a batch at a time
--   (an action holds up to 100,000), and an action once it has none left. Expired: not running,
--   and finished (or, never run, expired as a preview) longer ago than the age.
-- Parameters:
--   $1 ageMs: bigint — the age in ms
--   $2 limit: int — most items and most actions
--   $3 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: FOR UPDATE SKIP LOCKED on the items it deletes (never waits); its own short
--   transaction.
-- Returns: n, the items and actions deleted.
-- Row: n bigint
WITH expired AS (
  SELECT id FROM :SCHEMA.bulk_actions
  WHERE status <> 'running'
    AND coalesce(finished_at, expires_at) < :NOW - $1::bigint * interval '1 millisecond'
), items AS (
  SELECT i.action_id, i.job_id FROM :SCHEMA.bulk_action_items i
  JOIN expired e ON e.id = i.action_id
  LIMIT $2::int
  FOR UPDATE OF i SKIP LOCKED
), deleted_items AS (
  DELETE FROM :SCHEMA.bulk_action_items i USING items x
  WHERE i.action_id = x.action_id AND i.job_id = x.job_id RETURNING 1
), emptied AS (
  -- Empty once this statement's deletes are done (a CTE does not see its siblings' effects).
  SELECT e.id FROM expired e
  WHERE NOT EXISTS (
    SELECT 1 FROM :SCHEMA.bulk_action_items i
    WHERE i.action_id = e.id
      AND NOT EXISTS (SELECT 1 FROM items x WHERE x.action_id = i.action_id AND x.job_id = i.job_id)
  )
  LIMIT $2::int
), deleted_actions AS (
  DELETE FROM :SCHEMA.bulk_actions b USING emptied x WHERE b.id = x.id RETURNING 1
)
SELECT (SELECT count(*) FROM deleted_items) + (SELECT count(*) FROM deleted_actions) AS n
