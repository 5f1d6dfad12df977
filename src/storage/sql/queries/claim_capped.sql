-- Purpose: claim.sql for claims that want capped queues (maxWorkers) and no queue holding
--   pending keyed jobs: the same claim (see claim.sql for the states, leases, caps
--   and types), with the capped queues locked inside the statement so it needs no transaction.
--   A separate statement so that claims without capped queues keep claim.sql's plan (measured:
--   these CTEs in claim.sql cost the uncapped drain W2-1p 1–6 %). Ends with
--   fragments/claim_finish.sql.
-- Parameters:
--   $1 workerId: text — as claim.sql
--   $2 limit: int — as claim.sql
--   $3 queues: text[] or NULL — as claim.sql
--   $4 leaseToken: text — as claim.sql
--   $5 withCapped: boolean — in the locked transaction: false claims from queues without a
--     maxWorkers cap and from the $7 queues this statement finds fresh (below), true from every
--     eligible queue
--   $6 types: text[] or NULL — as claim.sql
--   $7 cappedQueues: text[] — the capped queues the claim wants
--   $8 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: FOR UPDATE SKIP LOCKED on candidate rows (never hands a row to two claimers).
--   The transaction commits with synchronous_commit off (see fragments/claim_finish.sql).
--   Caps are exact across processes: the rows of the $7 queues are locked (FOR NO KEY UPDATE, in
--   name order) inside this statement, so claimers of a capped queue take turns, each holding
--   the lock for the rest of its statement only (no round trip to the client while held). The
--   lock returns the row's latest version; when its claim_seq equals the one this statement's
--   snapshot shows, no claim of the queue committed since the snapshot, the fetched + processing
--   rows counted are exact (only claims add to them) and the queue is claimed ("fresh").
--   Otherwise it is left alone and `stale` tells the store to claim again from a fresh snapshot.
--   A claim that takes jobs of a $7 queue adds 1 to its claim_seq. Runs alone as one autocommit
--   statement (the fast path: one round trip), or with $5 true in a transaction right after
--   claim_lock_capped_queues (the store's fall-back; its snapshot is always fresh there).
-- Returns: as claim.sql (id, queue, type, payload, attempts, trace_parent, run_at, created_at),
--   and stale (a $7 queue was not fresh); one row with a NULL id when nothing was claimed.
-- Row: as claim
WITH queue_locks AS MATERIALIZED (
  SELECT q.name, q.claim_seq
  FROM :SCHEMA.queues q
  WHERE q.name = ANY($7::text[])
  ORDER BY q.name
  FOR NO KEY UPDATE
),
eligible AS (
  SELECT q.name,
         CASE
           WHEN q.max_workers IS NULL THEN $2::int
           WHEN NOT ($5::boolean OR coalesce(l.claim_seq = q.claim_seq, false)) THEN 0
           ELSE least($2::int, greatest(q.max_workers - (
             SELECT count(*)::int
             FROM :SCHEMA.jobs_hot f
             WHERE f.queue = q.name AND f.status IN (:FETCHED, :PROCESSING)
           ), 0))
         END AS room,
         $6::text[] AS types
  FROM :SCHEMA.queues q
  LEFT JOIN queue_locks l ON l.name = q.name
  WHERE NOT q.is_paused
    AND q.is_active
    AND ($3::text[] IS NULL OR q.name = ANY($3::text[]))
),
picked AS (
  SELECT c.id, c.priority, c.run_at, e.name AS queue,
         row_number() OVER (ORDER BY c.priority DESC, c.run_at, c.id) AS rank
:INCLUDE unkeyed_lateral
  ORDER BY c.priority DESC, c.run_at, c.id
  LIMIT $2::int
),
bumped AS (
  UPDATE :SCHEMA.queues q
  SET claim_seq = q.claim_seq + 1
  WHERE q.name = ANY($7::text[])
    AND q.name IN (SELECT p.queue FROM picked p)
),
claim_flags AS (
  -- From queue_locks, not eligible: eligible stays referenced once and is planned inline.
  SELECT EXISTS (SELECT 1 FROM queue_locks l JOIN :SCHEMA.queues q ON q.name = l.name
                 WHERE l.claim_seq <> q.claim_seq) AS stale
),
:INCLUDE claim_finish
