-- Fragment: the jobs without a concurrency key of every eligible queue, up to its room, in claim
--   order and locked (SKIP LOCKED) — shared by claim.sql, claim_capped.sql and claim_keyed.sql
--   (included where they write `:INCLUDE unkeyed_lateral`, inside their `picked` or unkeyed CTE).
--   Expects a CTE `eligible` (name, room) and $7 (job types, lower-case, or NULL); defines the
--   lateral `c` (id, priority, run_at).
  FROM eligible e
  CROSS JOIN LATERAL (
    SELECT h.id, h.priority, h.run_at
    FROM :SCHEMA.jobs_hot h
    WHERE h.queue = e.name AND h.status = :PENDING AND h.run_at <= now()
      AND h.cancel_requested_at IS NULL AND h.concurrency_key IS NULL
      AND ($7::text[] IS NULL OR lower(h.type) = ANY($7::text[]))
    ORDER BY h.priority DESC, h.run_at, h.id
    LIMIT e.room
    FOR UPDATE SKIP LOCKED
  ) c
  WHERE e.room > 0
