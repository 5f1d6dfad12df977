-- ChokaQ schema, version 25: batches with callbacks (docs/workflows.md, "Batches"). Version 24
-- is another change's number (durable steps). A batch is one row of counters: each member's
-- move out of the hot table (archived, dead, cancelled) or back into it (resurrected) changes
-- them by one in the statement that moves it, and fires the callbacks the change makes due in
-- that statement too. A callback job is written with its batch, `awaiting` (no dependency edges,
-- so the resolver never looks at it) until the batch fires it.
-- `:SCHEMA` is replaced by the quoted, validated schema name before this script runs.

-- The batch a member belongs to, carried by the member's row through the hot table, the archive
-- and the DLQ (NULL, the default, costs a plain job no row space; NULL rows are in no index).
-- Ids are typed as the jobs' (varchar(50) COLLATE "C"), so comparisons with them use their
-- indexes.
ALTER TABLE :SCHEMA.jobs_hot ADD COLUMN IF NOT EXISTS batch_id varchar(50) COLLATE "C";
ALTER TABLE :SCHEMA.jobs_archive ADD COLUMN IF NOT EXISTS batch_id varchar(50) COLLATE "C";
ALTER TABLE :SCHEMA.jobs_dlq ADD COLUMN IF NOT EXISTS batch_id varchar(50) COLLATE "C";

CREATE TABLE IF NOT EXISTS :SCHEMA.batches (
  id varchar(50) COLLATE "C" PRIMARY KEY,
  -- Members written with the batch; never changes.
  total int NOT NULL CHECK (total > 0),
  -- Members that left the hot table so: archived, in the DLQ (not cancelled), cancelled. A
  -- resurrected member counts one fewer where it was; a purged one stays counted.
  succeeded int NOT NULL DEFAULT 0,
  died int NOT NULL DEFAULT 0,
  cancelled int NOT NULL DEFAULT 0,
  -- The callback jobs (NULL: none given) and when each was fired (NULL: not yet).
  on_success_id varchar(50) COLLATE "C",
  on_complete_id varchar(50) COLLATE "C",
  on_death_id varchar(50) COLLATE "C",
  success_fired_at timestamptz,
  complete_fired_at timestamptz,
  death_fired_at timestamptz,
  created_at timestamptz NOT NULL
);

-- A callback's batch (ctx.batch(), the job detail): a lookup by job id.
CREATE INDEX IF NOT EXISTS batches_on_success_idx ON :SCHEMA.batches (on_success_id)
  WHERE on_success_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS batches_on_complete_idx ON :SCHEMA.batches (on_complete_id)
  WHERE on_complete_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS batches_on_death_idx ON :SCHEMA.batches (on_death_id)
  WHERE on_death_id IS NOT NULL;

-- Retention's question "does a member of this batch remain?", one probe per table. Partial: a
-- plain job's row has no entry, and batch_id never changes, so updates stay HOT.
CREATE INDEX IF NOT EXISTS jobs_hot_batch_idx ON :SCHEMA.jobs_hot (batch_id)
  WHERE batch_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS jobs_archive_batch_idx ON :SCHEMA.jobs_archive (batch_id)
  WHERE batch_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS jobs_dlq_batch_idx ON :SCHEMA.jobs_dlq (batch_id)
  WHERE batch_id IS NOT NULL;
