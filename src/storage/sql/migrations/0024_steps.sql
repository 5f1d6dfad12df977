-- ChokaQ schema, version 24: durable steps (docs/workflows.md#durable-steps). A handler's
-- `ctx.step`, `ctx.sleep` and `ctx.waitForEvent` record each step once per job; a rerun of the
-- job replays recorded steps from here. Events sent to a job wait in its mailbox until a wait on
-- their topic takes them. Both tables hold rows of jobs in any table (hot, archive, DLQ); the
-- statements that purge jobs delete their rows too.
-- `:SCHEMA` is replaced by the quoted, validated schema name before this script runs.
CREATE TABLE IF NOT EXISTS :SCHEMA.job_steps (
  job_id text NOT NULL,
  -- Unique within the job: the first record of a name wins (a transactional step's insert fails
  -- on a second one, which rolls its transaction back).
  name text NOT NULL,
  -- 0 a step that ran, 1 a sleep, 2 a wait for an event.
  kind smallint NOT NULL CHECK (kind IN (0, 1, 2)),
  -- Over: a run step at once, an event wait once it received or timed out; a sleep never (its
  -- end is wake_at).
  done boolean NOT NULL,
  -- JSON text: a run step's result, an event wait's outcome; NULL while not done.
  result text,
  -- The topic an event wait listens on.
  topic text,
  -- A sleep's end, or an event wait's timeout.
  wake_at timestamptz,
  recorded_at timestamptz NOT NULL,
  -- Record order within the job.
  seq bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (job_id, name)
);

CREATE TABLE IF NOT EXISTS :SCHEMA.job_events (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  job_id text NOT NULL,
  topic text NOT NULL,
  -- JSON text.
  data text NOT NULL,
  sent_at timestamptz NOT NULL
);

-- A wait takes the oldest event of its job and topic.
CREATE INDEX IF NOT EXISTS job_events_job_topic_idx ON :SCHEMA.job_events (job_id, topic, seq);
