-- ChokaQ schema, version 6: bulk actions (preview → confirmation token → durable run in batches).
-- `:SCHEMA` is replaced by the quoted, validated schema name before this script runs.

-- When an operator last edited a DLQ row in place; with failed_at it makes the row's version, so a
-- bulk action previewed before an edit skips the edited job.
ALTER TABLE :SCHEMA.jobs_dlq ADD COLUMN IF NOT EXISTS edited_at timestamptz;

-- One row per previewed bulk action; it becomes the record of the run (who, why, what, counts).
CREATE TABLE IF NOT EXISTS :SCHEMA.bulk_actions (
  id varchar(50) COLLATE "C" PRIMARY KEY,
  -- resurrect, purge, edit-resurrect or cancel
  action varchar(20) NOT NULL,
  -- What was previewed: ids, a query filter or an error group.
  target jsonb NOT NULL,
  -- edit-resurrect: the payload patch, priority and tags.
  edit jsonb,
  -- SHA-256 of the confirmation token's secret; the token itself is never stored.
  token_hash varchar(64) NOT NULL,
  -- previewed, running, succeeded, cancelled, failed
  status varchar(20) NOT NULL,
  total integer NOT NULL,
  done integer NOT NULL DEFAULT 0,
  applied integer NOT NULL DEFAULT 0,
  skipped integer NOT NULL DEFAULT 0,
  actor varchar(100),
  reason text,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- A preview not run by then can no longer be confirmed.
  expires_at timestamptz NOT NULL,
  started_at timestamptz,
  finished_at timestamptz,
  cancel_requested_at timestamptz,
  cancel_requested_by varchar(100)
);
CREATE INDEX IF NOT EXISTS bulk_actions_created_idx ON :SCHEMA.bulk_actions (created_at DESC, id);

-- The jobs a preview selected, each with the version it had then: a job that changed before
-- its batch runs (its version differs, or it left the table) is skipped and reported.
CREATE TABLE IF NOT EXISTS :SCHEMA.bulk_action_items (
  action_id varchar(50) COLLATE "C" NOT NULL,
  job_id varchar(50) COLLATE "C" NOT NULL,
  -- DLQ jobs: failed_at in microseconds since the epoch; hot jobs (cancel): 0.
  version bigint NOT NULL,
  -- 0 waiting, 1 applied, 2 skipped
  status smallint NOT NULL DEFAULT 0 CHECK (status IN (0, 1, 2)),
  note text,
  PRIMARY KEY (action_id, job_id)
);
-- The next batch: waiting items of an action.
CREATE INDEX IF NOT EXISTS bulk_action_items_waiting_idx
  ON :SCHEMA.bulk_action_items (action_id, job_id) WHERE status = 0;
