-- ChokaQ schema, version 20: a queue can keep no archive rows for its succeeded jobs (for
-- high-volume queues whose history nobody reads). Its settle deletes the hot row and changes the
-- lifetime counter and the metric bucket as before; only the archive insert is left out.
-- `:SCHEMA` is replaced by the quoted, validated schema name before this script runs.
ALTER TABLE :SCHEMA.queues ADD COLUMN IF NOT EXISTS keep_succeeded boolean NOT NULL DEFAULT true;
