-- Fragment: the end of a claim, shared by claim.sql, claim_capped.sql and claim_keyed.sql
--   (included where they write `:INCLUDE claim_finish`). Expects a CTE `picked` (id, priority,
--   run_at, rank in claim order), a one-row CTE `claim_flags` (stale: whether the claim should be
--   made again, see claim_keyed.sql) and the claim's parameters $1 worker id, $4 lease token:
--   moves the picked rows pending → fetched, and returns what a worker needs.
claimed AS (
  -- Rows by primary key from an array, not a join with picked: the cached generic plan then
  -- stays an index lookup however many rows the planner guesses picked holds.
  UPDATE :SCHEMA.jobs_hot h
  SET status = :FETCHED, worker_id = $1::text, lease_token = $4::text, updated_at = :NOW,
      changed_at = :NOW
  WHERE h.id = ANY(ARRAY(SELECT id FROM picked))
  -- The columns read below only: a data-modifying CTE is kept whole in memory, row by row.
  RETURNING h.id, h.queue, h.type, h.payload, h.attempts, h.trace_parent, h.run_at,
            h.created_at, h.priority, h.has_dependents
)
-- A claim need not wait for its WAL flush: one lost in a server crash leaves its jobs pending,
-- and any later synchronous commit (a settle) flushes it first. Only this transaction is async.
-- Only what the worker needs (ClaimedJob), timestamps as epoch milliseconds (float8): fewer
-- columns to parse and no text dates cut the worker's CPU per job by about a tenth.
-- The status, worker id and lease token are the same for every row (fetched, $1, $4): the store
-- fills them in rather than read them back per row (two UUID-sized strings less per claimed job
-- to parse and keep while it waits in the worker's local queue).
-- `stale` comes from the including statement (claim_flags); with nothing claimed the one row
-- left has only it (a NULL id), so the flag always reaches the store.
SELECT c.id, c.queue, c.type, c.payload, c.attempts, c.trace_parent,
       date_part('epoch', c.run_at) * 1000 AS run_at,
       date_part('epoch', c.created_at) * 1000 AS created_at,
       c.has_dependents, f.stale
-- In picked's rank (claim order: for keyed queues keys take turns), which the worker runs them in.
-- The generic plan joins the two CTEs by hash (EXPLAIN at 532 and 5,000 claimed rows).
FROM claim_flags f
LEFT JOIN (claimed c JOIN picked p ON p.id = c.id) ON true
CROSS JOIN (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit
ORDER BY p.rank
