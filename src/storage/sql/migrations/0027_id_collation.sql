-- ChokaQ schema, version 27: the job ids of the workflow and step tables in the collation of the
-- job tables' ids ("C"). A comparison of a "C" column with a column of the default collation is
-- made in "C" (a non-default implicit collation wins), so an index built in the default collation
-- could not serve it: the resolver's lookups of a waiting job's edges (`e.job_id = h.id`) read
-- job_dependencies whole, and the deletes of a job's steps and events read those tables whole.
-- Only the indexes are rebuilt; the rows stay as they are.
-- `:SCHEMA` is replaced by the quoted, validated schema name before this script runs.
ALTER TABLE :SCHEMA.job_dependencies
  ALTER COLUMN job_id TYPE text COLLATE "C",
  ALTER COLUMN depends_on TYPE text COLLATE "C";
ALTER TABLE :SCHEMA.job_steps ALTER COLUMN job_id TYPE text COLLATE "C";
ALTER TABLE :SCHEMA.job_events ALTER COLUMN job_id TYPE text COLLATE "C";
