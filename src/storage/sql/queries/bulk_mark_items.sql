-- Purpose: mark a batch's items applied or skipped and add them to the action's counters.
-- Parameters:
--   $1 id: text — the bulk action's id
--   $2 jobIds: text[] — the items' job ids
--   $3 statuses: smallint[] — each item's status: 1 applied, 2 skipped
--   $4 notes: (text or NULL)[] — each item's note, NULL for none
-- Locking: the items were locked by bulk_claim_items in this transaction; row lock on the action.
-- Returns: nothing.
WITH marked AS (
  UPDATE :SCHEMA.bulk_action_items i
  SET status = m.status, note = m.note
  FROM unnest($2::text[], $3::smallint[], $4::text[]) AS m(job_id, status, note)
  WHERE i.action_id = $1::text AND i.job_id = m.job_id AND i.status = 0
  RETURNING i.status
)
UPDATE :SCHEMA.bulk_actions
SET done = done + (SELECT count(*) FROM marked),
    applied = applied + (SELECT count(*) FROM marked WHERE status = 1),
    skipped = skipped + (SELECT count(*) FROM marked WHERE status = 2)
WHERE id = $1::text
