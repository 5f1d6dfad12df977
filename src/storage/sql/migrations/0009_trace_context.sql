-- ChokaQ schema, version 9: the trace context of the code that enqueued a job (a W3C
-- traceparent, 55 characters), so each run's span links to the enqueue's trace.
-- `:SCHEMA` is replaced by the quoted, validated schema name before this script runs.
ALTER TABLE :SCHEMA.jobs_hot ADD COLUMN IF NOT EXISTS trace_parent varchar(55);
