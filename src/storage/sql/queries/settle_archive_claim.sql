-- Purpose: settle_archive.sql that also hands the capped-queue slots it frees to the settling
--   worker: for each queue of $12 the archive freed n slots of, the queue's n next due pending
--   jobs without a concurrency key (not cancel-requested), in claim order (priority desc,
--   run_at, id), are looked at, and those of the worker's types are claimed for it at once
--   (fetched, one new lease token: the worker records their starts as it does a claim's), at
--   most $11 in all. A next job of another type is left to the other processes (the store wakes
--   them), so workers of other types are not passed over. The worker then runs the handed jobs
--   without a claim: the settle and the next claim are one round trip. The next jobs are
--   read as a claim reads them (fragments/unkeyed_lateral.sql), for every type.
-- Parameters:
--   $1 ids: text[] — as settle_archive.sql
--   $2 workerIds: text[] — as settle_archive.sql
--   $3 leaseTokens: text[] — as settle_archive.sql
--   $4 durationsMs: float8[] — as settle_archive.sql
--   $5 notes: (text or NULL)[] or NULL — as settle_archive.sql
--   $6 results: (text or NULL)[] or NULL — as settle_archive.sql
--   $7 keep: boolean[] or NULL — as settle_archive.sql
--   $8 types: text[] or NULL — job types the worker can run, lower-case; NULL for every type
--   $9 workerId: text — the worker that takes the freed slots
--   $10 leaseToken: text — the lease token of the jobs it starts
--   $11 limit: int — most jobs to start: the slots the worker keeps free for them
--   $12 cappedQueues: text[] — the capped queues the worker serves and may take from (the store
--     leaves out queues holding keyed jobs)
--   $13 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking and a reused archived id: as settle_archive.sql, plus FOR UPDATE SKIP LOCKED on the rows
--   looked at (never waits, never hands a row to two claimers). No queue row is locked and
--   claim_seq is not raised: a queue's fetched + processing count never grows here — each job
--   started takes a slot this statement freed (at most n per queue), so a claim that counted from
--   an older snapshot (the archived rows still active, the started ones still pending) counts as
--   many, and its cap stays exact. A queue whose cap was lowered below its active count gets fewer
--   (room below). Commits as the server's synchronous_commit says (it archives).
-- Returns, ordered by part: part 0 — id, queue and has_dependents of each archived job; part 1 — the started
--   jobs as claim.sql returns them (id, queue, type, payload, status, attempts, worker_id,
--   lease_token, trace_parent, run_at and created_at in epoch ms), in claim order; part 2 — the
--   queues whose freed room was all taken here (queue only): no other process need be woken.
-- Row: part int, id text or NULL, queue text, type text or NULL, payload text or NULL,
--   status smallint or NULL, attempts int or NULL, worker_id text or NULL, lease_token text or NULL,
--   trace_parent text or NULL, run_at float8 or NULL, created_at float8 or NULL,
--   has_dependents boolean or NULL
WITH scope AS (SELECT true AS batches)
:INCLUDE archive_moved
:INCLUDE archive_batched
, handoff AS (
  -- Room after this settle. The statement's snapshot still counts the archived rows as active,
  -- hence + n.
  SELECT q.name, f.n,
         q.max_workers + f.n - (
           SELECT count(*)::int
           FROM :SCHEMA.jobs_hot a
           WHERE a.queue = q.name AND a.status IN (:FETCHED, :PROCESSING)
         ) AS room
  FROM (SELECT m.queue, count(*)::int AS n
        FROM moved m
        WHERE m.queue = ANY($12::text[])
        GROUP BY m.queue) f
  JOIN :SCHEMA.queues q ON q.name = f.queue
  WHERE q.max_workers IS NOT NULL AND NOT q.is_paused AND q.is_active
),
eligible AS (
  -- Every type: the worker's types are taken after the scans (below), not stepped over in them.
  SELECT h.name, least(h.n, h.room) AS room, NULL::text[] AS types FROM handoff h
),
picked AS (
  -- The queue's next jobs in claim order, whatever their type; only those of the worker's types
  -- are taken (a slot whose next job the worker cannot run is left to the others, woken).
  SELECT c.id, c.priority, c.run_at, e.name AS queue,
         row_number() OVER (ORDER BY c.priority DESC, c.run_at, c.id) AS rank
:INCLUDE unkeyed_lateral
    AND ($8::text[] IS NULL OR lower(c.type) = ANY($8::text[]))
  ORDER BY c.priority DESC, c.run_at, c.id
  LIMIT $11::int
),
claimed AS (
  UPDATE :SCHEMA.jobs_hot h
  SET status = :FETCHED, worker_id = $9::text, lease_token = $10::text, updated_at = :NOW,
      changed_at = :NOW
  WHERE h.id = ANY(ARRAY(SELECT id FROM picked))
  RETURNING h.*
)
SELECT 1 AS part, c.id, c.queue, c.type, c.payload, c.status, c.attempts, c.worker_id,
       c.lease_token, c.trace_parent,
       date_part('epoch', c.run_at) * 1000 AS run_at,
       date_part('epoch', c.created_at) * 1000 AS created_at, c.has_dependents,
       p.rank
FROM claimed c
JOIN picked p ON p.id = c.id
UNION ALL
SELECT 0, m.id, m.queue, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, m.has_dependents,
       NULL
FROM moved m
UNION ALL
SELECT 2, NULL, h.name, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
FROM handoff h
WHERE h.room <= (SELECT count(*) FROM picked p WHERE p.queue = h.name)
ORDER BY part, rank
