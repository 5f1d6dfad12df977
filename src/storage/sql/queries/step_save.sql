-- Purpose: record a sleep or an event wait, or its end: inserts the step, or updates the
--   record of the same name and kind that is not done (its first wake_at stays).
-- Parameters:
--   $1 id: text — the job
--   $2 name: text — the step
--   $3 kind: smallint — 1 sleep, 2 event wait
--   $4 done: boolean — whether the step is over
--   $5 result: text or NULL — JSON text of the outcome when done
--   $6 topic: text or NULL — an event wait's topic
--   $7 wakeAt: timestamptz — the sleep's end or the wait's timeout
--   $8 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: the step's row (the caller holds the job's row lock).
-- Returns: the step's record as stored.
-- Row: as step_list
INSERT INTO :SCHEMA.job_steps AS s (job_id, name, kind, done, result, topic, wake_at, recorded_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, :NOW)
ON CONFLICT (job_id, name) DO UPDATE SET done = EXCLUDED.done, result = EXCLUDED.result
  WHERE s.kind = EXCLUDED.kind AND NOT s.done
RETURNING s.name, s.kind, s.done, s.result, s.topic, s.wake_at, s.recorded_at
