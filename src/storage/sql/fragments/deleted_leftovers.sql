-- Fragment: what a job leaves behind goes with it when its row is deleted for good (purge,
--   retention): its dependencies (docs/workflows.md), its recorded steps and the events sent to
--   it. Included by purge_dead.sql, retention_archive.sql and retention_dlq.sql after their CTE
--   `deleted (id)`.
, edges AS (
  DELETE FROM :SCHEMA.job_dependencies e USING deleted d WHERE e.job_id = d.id
), steps AS (
  DELETE FROM :SCHEMA.job_steps s USING deleted d WHERE s.job_id = d.id
), events AS (
  DELETE FROM :SCHEMA.job_events v USING deleted d WHERE v.job_id = d.id
)
