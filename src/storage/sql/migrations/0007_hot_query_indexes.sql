-- ChokaQ schema, version 7: indexes behind the operator query's filters on the hot table.
-- `:SCHEMA` is replaced by the quoted, validated schema name before this script runs.
-- Each is partial over rows a claim never writes into (pending rows) or most jobs never are
-- (tagged, retried, failed before), so a claim or settle of an untagged first run writes none
-- of them: the fast path keeps the index writes of migration 0004.

-- Creation order of pending rows only: a claim moves a row out of this index instead of writing
-- a new entry (schema 5 indexed every hot row, so every claim wrote one). Active rows are few and
-- read through jobs_hot_active_idx (src/storage/sql/job-query.ts reads the two apart).
DROP INDEX IF EXISTS :SCHEMA.jobs_hot_created_idx;
CREATE INDEX IF NOT EXISTS jobs_hot_pending_created_idx
  ON :SCHEMA.jobs_hot (created_at, id) WHERE status = 0;

-- Tags: the same expression as the archive's and the DLQ's (src/storage/sql/job-query.ts).
CREATE INDEX IF NOT EXISTS jobs_hot_tags_idx
  ON :SCHEMA.jobs_hot USING gin (regexp_split_to_array(btrim(tags), '\s*,\s*'))
  WHERE tags IS NOT NULL;

-- Jobs that ran more than once (retries, refunded lost runs do not count).
CREATE INDEX IF NOT EXISTS jobs_hot_attempts_idx
  ON :SCHEMA.jobs_hot (attempts, created_at) WHERE attempts > 1;

-- Words of the last error of a retrying job.
CREATE INDEX IF NOT EXISTS jobs_hot_error_words_idx
  ON :SCHEMA.jobs_hot USING gin (to_tsvector('simple'::regconfig, coalesce(last_error, '')))
  WHERE last_error IS NOT NULL;
