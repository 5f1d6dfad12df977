-- Purpose: lock the still-waiting items of one batch, so a batch applied twice at once (two
--   workers running the same action after a rescue) moves each job once.
-- Parameters: $1 action id, $2 job ids (text[]).
-- Locking: row locks on the items, in job id order.
-- Returns: job_id of each item still waiting.
SELECT job_id FROM :SCHEMA.bulk_action_items
WHERE action_id = $1::text AND job_id = ANY($2::text[]) AND status = 0
ORDER BY job_id
FOR UPDATE
