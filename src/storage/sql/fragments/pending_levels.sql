-- Fragment: the CTE `levels` (priority): the priorities of a queue's pending jobs without a
--   concurrency key, highest first, one probe of jobs_hot_fetch_idx each (a loose index scan) —
--   shared by unkeyed_lateral.sql and settle_archive_claim.sql, which then read each priority's
--   due jobs from its first entry to its first job not yet due. One scan over the queue's whole
--   entry range, with run_at only a filter, stepped over every job scheduled for later at a
--   higher priority — or, with fewer due jobs than it wanted, at any priority: 500,000 delayed
--   jobs made every claim of their queue read all 500,000 entries (0.5–0.7 s). Expects the
--   queue as `e.name`; opens the WITH clause of the query it starts.
    WITH RECURSIVE levels(priority) AS (
      (SELECT h.priority FROM :SCHEMA.jobs_hot h
       WHERE h.queue = e.name AND h.status = :PENDING AND h.concurrency_key IS NULL
       ORDER BY h.priority DESC LIMIT 1)
      UNION ALL
      SELECT (SELECT h.priority FROM :SCHEMA.jobs_hot h
              WHERE h.queue = e.name AND h.status = :PENDING AND h.concurrency_key IS NULL
                AND h.priority < l.priority
              ORDER BY h.priority DESC LIMIT 1)
      FROM levels l
      WHERE l.priority IS NOT NULL
    )
