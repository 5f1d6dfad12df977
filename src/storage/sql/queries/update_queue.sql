-- Purpose: upsert a queue's controls; a field whose "set" flag is false keeps its value
--   (or takes the column default when the row is new).
-- Parameters:
--   $1 name: text — the queue's name
--   $2 setPaused: boolean — whether to set $3
--   $3 paused: boolean or NULL — paused
--   $4 setActive: boolean — whether to set $5
--   $5 active: boolean or NULL — active
--   $6 setMaxWorkers: boolean — whether to set $7
--   $7 maxWorkers: int or NULL — the max workers
--   $8 setZombieTimeout: boolean — whether to set $9
--   $9 zombieTimeoutSeconds: int or NULL — the zombie timeout in seconds
--   $10 setKeepSucceeded: boolean — whether to set $11
--   $11 keepSucceeded: boolean or NULL — keep succeeded
--   $12 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: row lock on the queue row (waits for a claim holding it).
-- Returns: the row as stored.
-- Row: as list_queues
INSERT INTO :SCHEMA.queues AS q (name, is_paused, is_active, max_workers, zombie_timeout_seconds,
                                 keep_succeeded, updated_at)
VALUES ($1::text,
        CASE WHEN $2::boolean THEN $3::boolean ELSE false END,
        CASE WHEN $4::boolean THEN $5::boolean ELSE true END,
        CASE WHEN $6::boolean THEN $7::int END,
        CASE WHEN $8::boolean THEN $9::int END,
        CASE WHEN $10::boolean THEN $11::boolean ELSE true END,
        :NOW)
ON CONFLICT (name) DO UPDATE SET
  is_paused = CASE WHEN $2::boolean THEN $3::boolean ELSE q.is_paused END,
  is_active = CASE WHEN $4::boolean THEN $5::boolean ELSE q.is_active END,
  max_workers = CASE WHEN $6::boolean THEN $7::int ELSE q.max_workers END,
  zombie_timeout_seconds = CASE WHEN $8::boolean THEN $9::int ELSE q.zombie_timeout_seconds END,
  keep_succeeded = CASE WHEN $10::boolean THEN $11::boolean ELSE q.keep_succeeded END,
  updated_at = :NOW
RETURNING *
