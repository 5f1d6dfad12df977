-- Fragment: the jobs without a concurrency key of every eligible queue, up to its room, in claim
--   order and locked (SKIP LOCKED) — shared by claim.sql, claim_capped.sql and claim_keyed.sql
--   (included where they write `:INCLUDE unkeyed_lateral`, inside their `picked` or unkeyed CTE),
--   and settle_archive_claim.sql. Expects a CTE `eligible` (name, room, types: the job types to
--   take, lower-case, or NULL for every type); defines the lateral `c` (id, priority, run_at,
--   type).
--   Three scans of the fetch index, each ending at its last due job: the queue's highest
--   priority alone (`high`, the first entry of the queue's range), the priorities between its
--   highest and its lowest, and the lowest alone (`low`, read off the end of the index, where
--   the newest jobs are). A scan whose priority is one alone stops at its first job not yet due;
--   one scan of the whole queue with run_at only a filter went on through every job scheduled
--   for later whenever fewer jobs were due than the room (a worker waiting for work): 500,000
--   delayed jobs made every claim read all of them. Jobs scheduled for later at a priority
--   strictly between the queue's highest and lowest are still stepped over. Append runs the
--   scans in order under the LIMIT, so a later one runs only when the earlier ones leave room;
--   with one priority in the queue (high = low) only the first scan reads jobs.
  FROM eligible e
  CROSS JOIN LATERAL (
    SELECT u.id, u.priority, u.run_at, u.type
    FROM (SELECT h.priority AS high FROM :SCHEMA.jobs_hot h
          WHERE h.queue = e.name AND h.status = :PENDING AND h.concurrency_key IS NULL
          ORDER BY h.priority DESC LIMIT 1) hi
    CROSS JOIN (SELECT h.priority AS low FROM :SCHEMA.jobs_hot h
                WHERE h.queue = e.name AND h.status = :PENDING AND h.concurrency_key IS NULL
                ORDER BY h.priority LIMIT 1) lo
    CROSS JOIN LATERAL (
      SELECT * FROM (
       SELECT h.id, h.priority, h.run_at, h.type
       FROM :SCHEMA.jobs_hot h
       WHERE h.queue = e.name AND h.status = :PENDING AND h.priority = hi.high
         AND h.run_at <= now() AND h.cancel_requested_at IS NULL AND h.concurrency_key IS NULL
         AND (e.types IS NULL OR lower(h.type) = ANY(e.types))
       ORDER BY h.run_at, h.id
       LIMIT e.room
       FOR UPDATE SKIP LOCKED) highest
      UNION ALL
      SELECT * FROM (
       SELECT h.id, h.priority, h.run_at, h.type
       FROM :SCHEMA.jobs_hot h
       WHERE h.queue = e.name AND h.status = :PENDING AND h.priority < hi.high
         AND h.priority > lo.low
         AND h.run_at <= now() AND h.cancel_requested_at IS NULL AND h.concurrency_key IS NULL
         AND (e.types IS NULL OR lower(h.type) = ANY(e.types))
       ORDER BY h.priority DESC, h.run_at, h.id
       LIMIT e.room
       FOR UPDATE SKIP LOCKED) between_them
      UNION ALL
      SELECT * FROM (
       SELECT h.id, h.priority, h.run_at, h.type
       FROM :SCHEMA.jobs_hot h
       WHERE h.queue = e.name AND h.status = :PENDING AND h.priority = lo.low AND lo.low < hi.high
         AND h.run_at <= now() AND h.cancel_requested_at IS NULL AND h.concurrency_key IS NULL
         AND (e.types IS NULL OR lower(h.type) = ANY(e.types))
       ORDER BY h.run_at, h.id
       LIMIT e.room
       FOR UPDATE SKIP LOCKED) lowest
    ) u
    LIMIT e.room
  ) c
  WHERE e.room > 0
