-- ChokaQ schema, version 5: job history, results, DLQ error groups, the operator audit trail and
-- the indexes behind the operator query surface (docs/operator-api.md).
-- `:SCHEMA` is replaced by the quoted, validated schema name before this script runs.

-- Bounded per-attempt history: a JSON array of the last runs and operator actions, appended by
-- the statements that already move the row (retry, zombie requeue, resurrect, edit). The run that
-- ends a job is read from the row's own columns, so a first-run success writes nothing extra.
ALTER TABLE :SCHEMA.jobs_hot
  ADD COLUMN IF NOT EXISTS history jsonb,
  -- The handler's last reported progress (0–100), written with the next heartbeat.
  ADD COLUMN IF NOT EXISTS progress real;

ALTER TABLE :SCHEMA.jobs_archive
  ADD COLUMN IF NOT EXISTS history jsonb,
  -- The handler's return value as JSON (size-limited); NULL when it returned nothing.
  ADD COLUMN IF NOT EXISTS result text;

ALTER TABLE :SCHEMA.jobs_dlq
  ADD COLUMN IF NOT EXISTS history jsonb,
  ADD COLUMN IF NOT EXISTS progress real,
  ADD COLUMN IF NOT EXISTS started_at timestamptz,
  -- Error group: a hash of the error class, the normalised message and the top user frame.
  ADD COLUMN IF NOT EXISTS fingerprint varchar(64) COLLATE "C";

-- Rows dead before version 5 form one group per reason.
UPDATE :SCHEMA.jobs_dlq SET fingerprint = 'legacy-' || failure_reason WHERE fingerprint IS NULL;

-- The maintained summary behind DLQ triage: one row per error group, queue and type, changed by
-- the statements that move rows into or out of the DLQ. Never a scan of the DLQ per request.
CREATE TABLE IF NOT EXISTS :SCHEMA.dlq_error_groups (
  fingerprint varchar(64) COLLATE "C" NOT NULL,
  queue varchar(255) COLLATE "C" NOT NULL,
  type varchar(255) NOT NULL,
  error_class varchar(255) NOT NULL,
  message text NOT NULL,
  frame text,
  dead_count bigint NOT NULL DEFAULT 0 CHECK (dead_count >= 0),
  first_seen timestamptz NOT NULL,
  last_seen timestamptz NOT NULL,
  PRIMARY KEY (fingerprint, queue, type)
);
INSERT INTO :SCHEMA.dlq_error_groups (fingerprint, queue, type, error_class, message, frame,
                                      dead_count, first_seen, last_seen)
SELECT fingerprint, queue, type, 'Legacy',
       'failed before ChokaQ schema 5 (reason ' || failure_reason || ')', NULL,
       count(*), min(failed_at), max(failed_at)
FROM :SCHEMA.jobs_dlq
GROUP BY fingerprint, queue, type, failure_reason
ON CONFLICT (fingerprint, queue, type) DO NOTHING;

-- Operator actions (edit, resurrect, purge, cancel, queue changes, bulk actions): who, why, what.
CREATE TABLE IF NOT EXISTS :SCHEMA.operator_actions (
  id varchar(50) COLLATE "C" PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  actor varchar(100) NOT NULL,
  action varchar(50) NOT NULL,
  reason text,
  -- What it applied to: ids, a filter, an error group or a queue.
  target jsonb NOT NULL,
  -- What it did: counts, skipped ids.
  outcome jsonb NOT NULL
);
CREATE INDEX IF NOT EXISTS operator_actions_at_idx ON :SCHEMA.operator_actions (at DESC, id);

-- Query surface, hot table: newest first across states.
CREATE INDEX IF NOT EXISTS jobs_hot_created_idx ON :SCHEMA.jobs_hot (created_at, id);

-- Query surface, archive: by type, by creation time, by tag, retried jobs only.
CREATE INDEX IF NOT EXISTS jobs_archive_type_idx
  ON :SCHEMA.jobs_archive (type, finished_at DESC);
CREATE INDEX IF NOT EXISTS jobs_archive_created_idx ON :SCHEMA.jobs_archive (created_at, id);
CREATE INDEX IF NOT EXISTS jobs_archive_tags_idx
  ON :SCHEMA.jobs_archive USING gin (regexp_split_to_array(btrim(tags), '\s*,\s*'))
  WHERE tags IS NOT NULL;
CREATE INDEX IF NOT EXISTS jobs_archive_attempts_idx
  ON :SCHEMA.jobs_archive (attempts, finished_at DESC) WHERE attempts > 1;

-- Query surface, DLQ: by type, creation time, error group, tag, attempts and error words.
CREATE INDEX IF NOT EXISTS jobs_dlq_type_idx ON :SCHEMA.jobs_dlq (type, failed_at DESC);
CREATE INDEX IF NOT EXISTS jobs_dlq_created_idx ON :SCHEMA.jobs_dlq (created_at, id);
CREATE INDEX IF NOT EXISTS jobs_dlq_fingerprint_idx
  ON :SCHEMA.jobs_dlq (fingerprint, failed_at DESC);
CREATE INDEX IF NOT EXISTS jobs_dlq_tags_idx
  ON :SCHEMA.jobs_dlq USING gin (regexp_split_to_array(btrim(tags), '\s*,\s*'))
  WHERE tags IS NOT NULL;
CREATE INDEX IF NOT EXISTS jobs_dlq_attempts_idx
  ON :SCHEMA.jobs_dlq (attempts, failed_at DESC) WHERE attempts > 1;
CREATE INDEX IF NOT EXISTS jobs_dlq_error_words_idx
  ON :SCHEMA.jobs_dlq USING gin (to_tsvector('simple'::regconfig, coalesce(error_details, '')));
