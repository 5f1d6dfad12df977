-- Fragment: the jobs without a concurrency key of every eligible queue, up to its room, in claim
--   order and locked (SKIP LOCKED) — shared by claim.sql, claim_capped.sql and claim_keyed.sql
--   (included where they write `:INCLUDE unkeyed_lateral`, inside their `picked` or unkeyed CTE),
--   and settle_archive_claim.sql. Expects a CTE `eligible` (name, room, types: the job types to
--   take, lower-case, or NULL for every type); defines the lateral `c` (id, priority, run_at,
--   type).
--   One scan of the queue's range of jobs_hot_fetch_idx, in its order, stopping at the room-th
--   job it locks. The index holds due jobs only: jobs scheduled for later are `scheduled`
--   (status 3) until the promoter makes them pending (schema 21), so the scan no longer steps
--   over them at any priority (it once ran three scans, one per priority band, to step over
--   fewer of them). `run_at <= now()` stays as a guard for rows an older version wrote pending
--   with a later run_at during an upgrade; it is read off the index entry and costs nothing else.
  FROM eligible e
  CROSS JOIN LATERAL (
    SELECT h.id, h.priority, h.run_at, h.type
    FROM :SCHEMA.jobs_hot h
    WHERE h.queue = e.name AND h.status = :PENDING AND h.concurrency_key IS NULL
      AND h.run_at <= :NOW AND h.cancel_requested_at IS NULL
      AND (e.types IS NULL OR lower(h.type) = ANY(e.types))
    ORDER BY h.priority DESC, h.run_at, h.id
    LIMIT e.room
    FOR UPDATE SKIP LOCKED
  ) c
  WHERE e.room > 0
