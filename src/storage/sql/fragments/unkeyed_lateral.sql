-- Fragment: the jobs without a concurrency key of every eligible queue, up to its room, in claim
--   order and locked (SKIP LOCKED) — shared by claim.sql, claim_capped.sql and claim_keyed.sql
--   (included where they write `:INCLUDE unkeyed_lateral`, inside their `picked` or unkeyed CTE).
--   Expects a CTE `eligible` (name, room) and $7 (job types, lower-case, or NULL); defines the
--   lateral `c` (id, priority, run_at).
--   Two scans of the fetch index, both ending at their last due job: first the priorities above
--   the queue's lowest (`low`, read off the end of the index, where the newest jobs are), then
--   the lowest priority alone, whose first job not yet due ends its scan. One scan of the whole
--   queue with run_at only a filter went on through every job scheduled for later at the lowest
--   priority whenever fewer jobs were due than the room (a worker waiting for work): 500,000
--   delayed jobs made every claim read all of them. Jobs scheduled for later at a higher
--   priority than due ones are still stepped over. The second scan runs only when the first
--   leaves room (Append runs its parts in order under the LIMIT).
  FROM eligible e
  CROSS JOIN LATERAL (
    SELECT u.id, u.priority, u.run_at
    FROM (SELECT h.priority FROM :SCHEMA.jobs_hot h
          WHERE h.queue = e.name AND h.status = :PENDING AND h.concurrency_key IS NULL
          ORDER BY h.priority LIMIT 1) low
    CROSS JOIN LATERAL (
      SELECT * FROM (
       SELECT h.id, h.priority, h.run_at
       FROM :SCHEMA.jobs_hot h
       WHERE h.queue = e.name AND h.status = :PENDING AND h.priority > low.priority
         AND h.run_at <= now() AND h.cancel_requested_at IS NULL AND h.concurrency_key IS NULL
         AND ($7::text[] IS NULL OR lower(h.type) = ANY($7::text[]))
       ORDER BY h.priority DESC, h.run_at, h.id
       LIMIT e.room
       FOR UPDATE SKIP LOCKED) above
      UNION ALL
      SELECT * FROM (
       SELECT h.id, h.priority, h.run_at
       FROM :SCHEMA.jobs_hot h
       WHERE h.queue = e.name AND h.status = :PENDING AND h.priority = low.priority
         AND h.run_at <= now() AND h.cancel_requested_at IS NULL AND h.concurrency_key IS NULL
         AND ($7::text[] IS NULL OR lower(h.type) = ANY($7::text[]))
       ORDER BY h.run_at, h.id
       LIMIT e.room
       FOR UPDATE SKIP LOCKED) lowest
    ) u
    LIMIT e.room
  ) c
  WHERE e.room > 0
