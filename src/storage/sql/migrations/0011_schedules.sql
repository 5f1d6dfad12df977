-- ChokaQ schema, version 11: recurring jobs. A schedule's checked definition, pause flag and
-- cursor (ticks at or before it were fired or passed over); one row per fired tick, unique per
-- (schedule, tick time), so a tick fires once across every process. Tick rows outlive their jobs'
-- archiving; retention deletes them by age (`scheduleTicks`) and with their schedule.
-- `:SCHEMA` is replaced by the quoted, validated schema name before this script runs.
CREATE TABLE IF NOT EXISTS :SCHEMA.schedules (
  name varchar(60) COLLATE "C" PRIMARY KEY,
  definition jsonb NOT NULL,
  paused boolean NOT NULL DEFAULT false,
  cursor_at timestamptz NOT NULL,
  anchor_at timestamptz NOT NULL,
  -- the job of the latest enqueued tick, for `overlap: 'skip'`
  last_job_id varchar(50),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

CREATE TABLE IF NOT EXISTS :SCHEMA.schedule_ticks (
  schedule varchar(60) COLLATE "C" NOT NULL
    REFERENCES :SCHEMA.schedules (name) ON DELETE CASCADE,
  tick_at timestamptz NOT NULL,
  fired_at timestamptz NOT NULL,
  manual boolean NOT NULL,
  -- enqueued | skipped | failed
  outcome varchar(10) NOT NULL,
  job_id varchar(50),
  error text,
  PRIMARY KEY (schedule, tick_at)
);

-- Retention deletes ticks by age.
CREATE INDEX IF NOT EXISTS schedule_ticks_fired_at ON :SCHEMA.schedule_ticks (fired_at);
