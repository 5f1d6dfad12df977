-- Purpose: claim.sql for claims that want a queue holding pending jobs with a concurrency key
--   ($7): the same claim (see claim.sql for the states, leases, caps and types),
--   plus concurrency keys. Order: priority desc, turn, run_at, id, across queues. A job's turn
--   is 1 in a queue not in $7. In a keyed queue each key is a line: a job's turn is its key's
--   fetched + processing jobs plus its place in the line, so keys take turns (round-robin)
--   within a priority, and a key never has more than its limit (concurrency_limit of its next
--   pending job) fetched + processing. Jobs without a key form one line of their own there.
--   Two ways to find a keyed queue's candidates, same result: the walk reads the first
--   2 × room pending keyed jobs in claim order whatever their key (jobs_hot_keyed_order_idx) and
--   decides the claim when its room-th pick comes before every job it did not read (see
--   unwalked); otherwise key_heads finds every key's line head, one index probe per waiting key.
--   So a claim costs per waiting key only when the walk's front holds too few keys with room
--   (keys busy or at their limit, one key's long line). A separate statement so that claims
--   without keyed queues keep claim.sql's smaller plan (measured: about 0.1 ms less per claim).
--   Both end with fragments/claim_finish.sql.
-- Parameters:
--   $1 workerId: text — as claim.sql
--   $2 limit: int — as claim.sql
--   $3 queues: text[] or NULL — as claim.sql
--   $4 leaseToken: text — as claim.sql
--   $5 withCapped: boolean — as claim.sql, except that with false no capped queue is claimed (the
--     store claims capped and keyed queues together only in the locked transaction)
--   $6 types: text[] or NULL — as claim.sql
--   $7 keyedQueues: text[] — only from these queues are jobs with a concurrency key claimed
--   $8 limitedQueues: text[] or NULL — the keyed queues among them whose keys with a limit may be
--     claimed: keys with a limit are claimed only from these
--   $9 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: FOR UPDATE SKIP LOCKED on the chosen rows. The rows of the $8 queues are locked
--   (FOR NO KEY UPDATE, in name order) inside this statement: claimers of one such queue take
--   turns. The lock returns the row's latest version; when its claim_seq equals the one this
--   statement's snapshot shows, no claim of keyed jobs of the queue committed since the
--   snapshot, so the jobs counted per key are exact and the queue's limited keys are claimed
--   ("fresh"). Otherwise they are left alone, and `stale` tells the store to claim again from a
--   fresh snapshot (in a transaction after claim_lock_capped_queues, where it always is fresh).
--   A claim that takes jobs of a $8 queue adds 1 to its claim_seq. Runs alone as one
--   autocommit statement, or in that transaction (also with capped queues, $5 true; $8 then
--   names every queue the transaction locked, capped ones too, so the claim_seq of a capped
--   queue it claims from moves on, as claim_capped.sql needs).
-- Returns: as claim.sql; stale is true when a $8 queue was not fresh.
-- Row: as claim
WITH RECURSIVE queue_locks AS MATERIALIZED (
  SELECT q.name, q.claim_seq
  FROM :SCHEMA.queues q
  WHERE q.name = ANY(coalesce($8::text[], '{}'))
  ORDER BY q.name
  FOR NO KEY UPDATE
),
eligible AS (
  SELECT q.name,
         CASE
           WHEN q.max_workers IS NULL THEN $2::int
           ELSE least($2::int, greatest(q.max_workers - (
             SELECT count(*)::int
             FROM :SCHEMA.jobs_hot f
             WHERE f.queue = q.name AND f.status IN (:FETCHED, :PROCESSING)
           ), 0))
         END AS room,
         $6::text[] AS types,
         q.name = ANY(coalesce($7::text[], '{}')) AS keyed,
         coalesce(l.claim_seq = q.claim_seq, false) AS locked,
         l.name IS NOT NULL AND l.claim_seq <> q.claim_seq AS stale
  FROM :SCHEMA.queues q
  LEFT JOIN queue_locks l ON l.name = q.name
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
:INCLUDE unkeyed_lateral
),
walk AS (
  -- Keyed queues ($7): the first 2 × room pending jobs with a key in claim order whatever their
  -- key (jobs_hot_keyed_order_idx), due or not; `place` their place in it. A key's first job
  -- here is the head of its line, and its jobs here are the first of its line.
  SELECT e.name AS queue, e.locked, e.room, w.*
  FROM eligible e
  CROSS JOIN LATERAL (
    SELECT n.id, n.concurrency_key AS key, n.priority, n.run_at, n.concurrency_limit AS lim,
           n.run_at <= :NOW AND n.cancel_requested_at IS NULL
             AND ($6::text[] IS NULL OR lower(n.type) = ANY($6::text[])) AS ready,
           row_number() OVER (ORDER BY n.priority DESC, n.run_at, n.id) AS place
    FROM :SCHEMA.jobs_hot n
    WHERE n.queue = e.name AND n.status = :PENDING AND n.concurrency_key IS NOT NULL
    ORDER BY n.priority DESC, n.run_at, n.id
    LIMIT 2 * e.room
  ) w
  WHERE e.keyed AND e.room > 0
),
walk_keys AS (
  -- Each key met in the walk: busy and room as in key_room below (its limit: its head's).
  SELECT k.queue, k.key, b.busy,
         CASE
           WHEN k.lim IS NULL THEN $2::int
           WHEN k.locked THEN least($2::int, greatest(k.lim - b.busy, 0))
           ELSE 0
         END AS room
  FROM (SELECT DISTINCT ON (w.queue, w.key) w.queue, w.key, w.lim, w.locked
        FROM walk w
        ORDER BY w.queue, w.key, w.place) k
  CROSS JOIN LATERAL (
    SELECT count(*)::int AS busy FROM :SCHEMA.jobs_hot f
    WHERE f.queue = k.queue AND f.concurrency_key = k.key AND f.status IN (:FETCHED, :PROCESSING)
  ) b
),
walk_picks AS (
  -- Per keyed queue, in claim order (`n`): the walk's ready jobs as far as their key's room, turn
  -- = busy + place among the key's ready jobs, and the queue's line of jobs without a key.
  SELECT c.*, row_number() OVER (PARTITION BY c.queue
                                 ORDER BY c.priority DESC, c.turn, c.run_at, c.id) AS n
  FROM (SELECT l.queue, l.id, l.priority, l.run_at, l.busy + l.rank AS turn
        FROM (SELECT w.queue, w.id, w.priority, w.run_at, k.busy, k.room,
                     row_number() OVER (PARTITION BY w.queue, w.key ORDER BY w.place) AS rank
              FROM walk w
              JOIN walk_keys k ON k.queue = w.queue AND k.key = w.key
              WHERE w.ready AND k.room > 0) l
        WHERE l.rank <= l.room
        UNION ALL
        SELECT u.queue, u.id, u.priority, u.run_at, u.turn FROM unkeyed u WHERE u.keyed) c
),
unwalked AS (
  -- The keyed queues the walk does not decide; their claims find every key (key_heads on). The
  -- walk decides a queue when it read all of its pending keyed jobs, or when its room-th pick
  -- comes before every job it did not read: such a job has the last walked job's priority at
  -- most and, at that priority, a later run_at (or id) and a turn of 1 at least. So the pick
  -- qualifies with a higher priority, or that priority, turn 1 and not after the last walked job.
  SELECT w.queue
  FROM (SELECT DISTINCT ON (w.queue) w.queue, w.room, w.place, w.priority, w.run_at, w.id
        FROM walk w
        ORDER BY w.queue, w.place DESC) w
  LEFT JOIN walk_picks p ON p.queue = w.queue AND p.n = w.room
  WHERE w.place = 2 * w.room
    AND NOT coalesce(p.priority > w.priority
                     OR (p.priority = w.priority AND p.turn = 1
                         AND (p.run_at, p.id) <= (w.run_at, w.id)), false)
),
key_heads(queue, locked, key, id, priority, run_at, lim, ready) AS (
  -- Keyed queues ($7) the walk does not decide: every key with pending jobs and the head of its
  -- line (its first pending job in claim order, due or not), one index probe per key: the keyed
  -- fetch index is ordered by key and then claim order, so its first entry past a key is the next
  -- key's head. `ready`: the head itself may be claimed now.
  SELECT e.name, e.locked, h.concurrency_key, h.id, h.priority, h.run_at, h.concurrency_limit,
         h.ready
  FROM unwalked u
  JOIN eligible e ON e.name = u.queue
  CROSS JOIN LATERAL (
    SELECT n.concurrency_key, n.id, n.priority, n.run_at, n.concurrency_limit,
           n.run_at <= :NOW AND n.cancel_requested_at IS NULL
             AND ($6::text[] IS NULL OR lower(n.type) = ANY($6::text[])) AS ready
    FROM :SCHEMA.jobs_hot n
    WHERE n.queue = e.name AND n.status = :PENDING AND n.concurrency_key IS NOT NULL
    ORDER BY n.concurrency_key, n.priority DESC, n.run_at, n.id
    LIMIT 1
  ) h
  UNION ALL
  SELECT l.queue, l.locked, h.concurrency_key, h.id, h.priority, h.run_at, h.concurrency_limit,
         h.ready
  FROM key_heads l
  CROSS JOIN LATERAL (
    SELECT n.concurrency_key, n.id, n.priority, n.run_at, n.concurrency_limit,
           n.run_at <= :NOW AND n.cancel_requested_at IS NULL
             AND ($6::text[] IS NULL OR lower(n.type) = ANY($6::text[])) AS ready
    FROM :SCHEMA.jobs_hot n
    WHERE n.queue = l.queue AND n.status = :PENDING AND n.concurrency_key IS NOT NULL
      AND n.concurrency_key > l.key
    ORDER BY n.concurrency_key, n.priority DESC, n.run_at, n.id
    LIMIT 1
  ) h
),
key_room AS (
  -- Each key's jobs fetched or processing (`busy`) and the jobs it may still take (`room`): its
  -- limit (the head's concurrency_limit) less busy, only in a queue this claim locked ($8).
  SELECT l.queue, l.key, l.id, l.priority, l.run_at, l.ready, k.busy,
         CASE
           WHEN l.lim IS NULL THEN $2::int
           WHEN l.locked THEN least($2::int, greatest(l.lim - k.busy, 0))
           ELSE 0 -- a limited key only when this claim locked its queue
         END AS room
  FROM key_heads l
  CROSS JOIN LATERAL (
    SELECT count(*)::int AS busy FROM :SCHEMA.jobs_hot f
    WHERE f.queue = l.queue AND f.concurrency_key = l.key AND f.status IN (:FETCHED, :PROCESSING)
  ) k
),
bars AS (
  -- Per keyed queue with at least `room` ready heads: the room-th of them in claim order. A
  -- key's later jobs have its head's priority at most and a turn of busy + 2 at least, so one
  -- that cannot come before this head cannot be claimed now, and its line is not read.
  SELECT h.queue, h.priority, h.busy + 1 AS turn
  FROM (SELECT r.queue, r.priority, r.busy,
               row_number() OVER (PARTITION BY r.queue
                                  ORDER BY r.priority DESC, r.busy, r.run_at, r.id) AS n
        FROM key_room r
        WHERE r.ready AND r.room > 0) h
  JOIN eligible e ON e.name = h.queue
  WHERE h.n = e.room
),
key_lines AS (
  SELECT r.*,
         NOT r.ready OR (r.room > 1 AND (b.queue IS NULL OR r.priority > b.priority
                                         OR (r.priority = b.priority AND r.busy + 2 <= b.turn)))
           AS whole
  FROM key_room r
  LEFT JOIN bars b ON b.queue = r.queue
  WHERE r.room > 0
),
keyed_lines AS (
  -- The candidates of keyed queues; turn = the key's jobs already fetched or processing + the
  -- job's place in its key's line: the head alone where that is enough, else the key's next
  -- jobs as many as its room, and the keyed queues' line of jobs without a key.
  SELECT l.id, l.priority, l.run_at, l.queue, l.busy + 1 AS turn
  FROM key_lines l
  WHERE NOT l.whole
  UNION ALL
  SELECT c.id, c.priority, c.run_at, l.queue,
         l.busy + row_number() OVER (PARTITION BY l.queue, l.key
                                     ORDER BY c.priority DESC, c.run_at, c.id) AS turn
  FROM key_lines l
  CROSS JOIN LATERAL (
    -- The key's line priority by priority, from its head's (one index probe finds each next
    -- priority): each priority's due jobs only, so a key's jobs scheduled for later are never
    -- stepped over (a scan of the whole line with run_at as a filter read every one of them, on
    -- every claim, while the key's head was not due). The recursion yields the priorities
    -- highest first and the nested loop keeps that order, so the LIMIT takes the line's first
    -- due jobs and stops the walk.
    -- (Since schema 21 jobs due later are scheduled, outside jobs_hot_keyed_fetch_idx, so a
    -- line holds due jobs only; the walk priority by priority stays for rows an older version
    -- wrote pending with a later run_at.)
    WITH RECURSIVE key_levels(priority) AS (
      SELECT l.priority
      UNION ALL
      SELECT (SELECT h.priority FROM :SCHEMA.jobs_hot h
              WHERE h.queue = l.queue AND h.concurrency_key = l.key AND h.status = :PENDING
                AND h.priority < v.priority
              ORDER BY h.priority DESC LIMIT 1)
      FROM key_levels v
      WHERE v.priority IS NOT NULL
    )
    SELECT d.id, d.priority, d.run_at
    FROM key_levels v
    CROSS JOIN LATERAL (
      SELECT h.id, h.priority, h.run_at
      FROM :SCHEMA.jobs_hot h
      WHERE h.queue = l.queue AND h.concurrency_key = l.key AND h.status = :PENDING
        AND h.priority = v.priority AND h.run_at <= :NOW AND h.cancel_requested_at IS NULL
        AND ($6::text[] IS NULL OR lower(h.type) = ANY($6::text[]))
      ORDER BY h.run_at, h.id
      LIMIT l.room
    ) d
    WHERE v.priority IS NOT NULL
    LIMIT l.room
  ) c
  WHERE l.whole
  UNION ALL
  SELECT u.id, u.priority, u.run_at, u.queue, u.turn
  FROM unkeyed u
  WHERE u.keyed AND u.queue IN (SELECT queue FROM unwalked)
),
keyed AS (
  -- At most the queue's room from each keyed queue, taking turns between its keys: the walk's
  -- picks, or for the queues it does not decide, the picks from every key's line.
  SELECT p.id, p.priority, p.run_at, p.turn, p.queue
  FROM walk_picks p
  JOIN eligible e ON e.name = p.queue
  WHERE p.n <= e.room AND p.queue NOT IN (SELECT queue FROM unwalked)
  UNION ALL
  SELECT k.id, k.priority, k.run_at, k.turn, k.queue
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
bumped AS (
  -- Jobs of queues that are not keyed only with $5 true: only then is a capped queue claimed.
  UPDATE :SCHEMA.queues q
  SET claim_seq = q.claim_seq + 1
  WHERE q.name IN (SELECT c.queue
                   FROM (SELECT k.id, k.queue FROM keyed k
                         UNION ALL
                         SELECT u.id, u.queue FROM unkeyed u WHERE $5::boolean AND NOT u.keyed) c
                   JOIN picked p ON p.id = c.id)
    AND q.name = ANY(coalesce($8::text[], '{}'))
),
claim_flags AS (
  SELECT EXISTS (SELECT 1 FROM eligible e WHERE e.stale) AS stale
),
:INCLUDE claim_finish
