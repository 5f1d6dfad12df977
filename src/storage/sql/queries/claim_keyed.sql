-- Purpose: claim.sql for claims that want a queue holding pending jobs with a concurrency key
--   ($8): the same claim (see claim.sql for the states, leases, start count, caps and types),
--   plus concurrency keys. Order: priority desc, turn, run_at, id, across queues. A job's turn
--   is 1 in a queue not in $8. In a keyed queue each key is a line: a job's turn is its key's
--   fetched + processing jobs plus its place in the line, so keys take turns (round-robin)
--   within a priority, and a key never has more than its limit (concurrency_limit of its next
--   pending job) fetched + processing. Jobs without a key form one line of their own there.
--   A separate statement so that claims without keyed queues keep claim.sql's smaller plan
--   (measured: about 0.1 ms less per claim). Both end with fragments/claim_finish.sql.
-- Parameters: $1–$7 as claim.sql; $8 keyed queues (text[]): only from these are jobs with a
--   concurrency key claimed; $9 the keyed queues among them that claim_lock_capped_queues
--   locked in this transaction (text[]) or NULL: only there are keys with a limit claimed.
-- Locking: FOR UPDATE SKIP LOCKED on candidate rows. Without capped queues or key limits ($5
--   false, $9 NULL) it runs alone, as one autocommit statement; otherwise in a transaction
--   right after claim_lock_capped_queues, so caps and key limits are exact.
-- Returns: as claim.sql.
WITH RECURSIVE eligible AS (
  SELECT q.name,
         CASE
           WHEN q.max_workers IS NULL THEN $2::int
           ELSE least($2::int, greatest(q.max_workers - (
             SELECT count(*)::int
             FROM :SCHEMA.jobs_hot f
             WHERE f.queue = q.name AND f.status IN (:FETCHED, :PROCESSING)
           ), 0))
         END AS room,
         q.name = ANY(coalesce($8::text[], '{}')) AS keyed,
         q.name = ANY(coalesce($9::text[], '{}')) AS locked
  FROM :SCHEMA.queues q
  WHERE NOT q.is_paused
    AND q.is_active
    AND ($5::boolean OR q.max_workers IS NULL)
    AND ($3::text[] IS NULL OR q.name = ANY($3::text[]))
),
unkeyed AS (
  -- Every eligible queue's jobs without a key, in claim order: turn 1 in a queue that is not
  -- keyed; in a keyed queue they stand in one line of their own (turn = place in that line).
  SELECT c.id, c.priority, c.run_at, e.name AS queue, e.keyed,
         CASE WHEN e.keyed
              THEN row_number() OVER (PARTITION BY e.name ORDER BY c.priority DESC, c.run_at, c.id)
              ELSE 1
         END AS turn
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
),
key_lines(queue, locked, key) AS (
  -- Keyed queues ($8): every key with pending jobs, one index probe per key.
  SELECT e.name, e.locked, (
    SELECT min(h.concurrency_key) FROM :SCHEMA.jobs_hot h
    WHERE h.queue = e.name AND h.status = :PENDING AND h.concurrency_key IS NOT NULL)
  FROM eligible e
  WHERE e.keyed AND e.room > 0
  UNION ALL
  SELECT l.queue, l.locked, (
    SELECT min(h.concurrency_key) FROM :SCHEMA.jobs_hot h
    WHERE h.queue = l.queue AND h.status = :PENDING AND h.concurrency_key IS NOT NULL
      AND h.concurrency_key > l.key)
  FROM key_lines l
  WHERE l.key IS NOT NULL
),
keyed_lines AS (
  -- Each key's next jobs, as many as its limit leaves room for (a key with a limit only in a
  -- queue this claim locked, $9); turn = the key's jobs already fetched or processing + the
  -- job's place in its key's line. Plus the keyed queues' line of jobs without a key.
  SELECT c.id, c.priority, c.run_at, l.queue,
         k.busy + row_number() OVER (PARTITION BY l.queue, l.key
                                     ORDER BY c.priority DESC, c.run_at, c.id) AS turn
  FROM key_lines l
  CROSS JOIN LATERAL (
    SELECT (SELECT count(*)::int FROM :SCHEMA.jobs_hot f
            WHERE f.queue = l.queue AND f.concurrency_key = l.key
              AND f.status IN (:FETCHED, :PROCESSING)) AS busy,
           (SELECT n.concurrency_limit FROM :SCHEMA.jobs_hot n
            WHERE n.queue = l.queue AND n.concurrency_key = l.key AND n.status = :PENDING
            ORDER BY n.priority DESC, n.run_at, n.id LIMIT 1) AS max_busy
    OFFSET 0 -- evaluated once per key, not again for every job of its line
  ) k
  CROSS JOIN LATERAL (
    SELECT h.id, h.priority, h.run_at
    FROM :SCHEMA.jobs_hot h
    WHERE h.queue = l.queue AND h.concurrency_key = l.key AND h.status = :PENDING
      AND h.run_at <= now() AND h.cancel_requested_at IS NULL
      AND ($7::text[] IS NULL OR lower(h.type) = ANY($7::text[]))
    ORDER BY h.priority DESC, h.run_at, h.id
    LIMIT CASE
            WHEN k.max_busy IS NULL THEN $2::int
            WHEN l.locked THEN least($2::int, greatest(k.max_busy - k.busy, 0))
            ELSE 0 -- a limited key only when this claim locked its queue
          END
  ) c
  WHERE l.key IS NOT NULL
  UNION ALL
  SELECT u.id, u.priority, u.run_at, u.queue, u.turn FROM unkeyed u WHERE u.keyed
),
keyed AS (
  -- At most the queue's room from each keyed queue, taking turns between its keys.
  SELECT k.id, k.priority, k.run_at, k.turn
  FROM (SELECT kl.*, row_number() OVER (PARTITION BY kl.queue
                                        ORDER BY kl.priority DESC, kl.turn, kl.run_at, kl.id) AS n
        FROM keyed_lines kl) k
  JOIN eligible e ON e.name = k.queue
  WHERE k.n <= e.room
),
chosen AS (
  SELECT c.id, c.priority, c.run_at, c.turn
  FROM (SELECT u.id, u.priority, u.run_at, u.turn FROM unkeyed u WHERE NOT u.keyed
        UNION ALL
        SELECT k.id, k.priority, k.run_at, k.turn FROM keyed k) c
  ORDER BY c.priority DESC, c.turn, c.run_at, c.id
  LIMIT $2::int
),
picked AS (
  -- Key lines are read without locks (they read more jobs than a claim takes); only the chosen
  -- jobs are locked, here. One that another claimer took since this statement began is stepped
  -- over (SKIP LOCKED, or no longer pending when its lock is granted), so the claim may return
  -- fewer jobs than it chose, never a job twice.
  SELECT h.id, h.priority, h.run_at,
         row_number() OVER (ORDER BY c.priority DESC, c.turn, c.run_at, c.id) AS rank
  FROM chosen c
  JOIN LATERAL (
    SELECT j.id, j.priority, j.run_at FROM :SCHEMA.jobs_hot j
    WHERE j.id = c.id AND j.status = :PENDING
    FOR UPDATE SKIP LOCKED
  ) h ON true
),
:INCLUDE claim_finish
