-- ChokaQ schema, version 17: the archive keeps a job's concurrency key, as the DLQ already does,
-- so the operator's job views show which key (tenant) a finished job ran under. Not indexed: the
-- archive is read by id, time, queue, type and tags; a key is shown, not searched. Jobs without
-- a key store NULL (no extra bytes in the row).
-- `:SCHEMA` is replaced by the quoted, validated schema name before this script runs.
ALTER TABLE :SCHEMA.jobs_archive ADD COLUMN IF NOT EXISTS concurrency_key varchar(255) COLLATE "C";
