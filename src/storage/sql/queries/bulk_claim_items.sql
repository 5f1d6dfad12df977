-- Purpose: lock the still-waiting items of one batch, so a batch applied twice at once (two
--   workers running the same action after a rescue) moves each job once.
-- Parameters:
--   $1 id: text — the bulk action's id
--   $2 jobIds: text[] — the items' job ids
-- Locking: row locks on the items, in job id order.
-- Returns: job_id of each item still waiting.
-- Row: job_id text
SELECT job_id FROM :SCHEMA.bulk_action_items
WHERE action_id = $1::text AND job_id = ANY($2::text[]) AND status = 0
ORDER BY job_id
FOR UPDATE
