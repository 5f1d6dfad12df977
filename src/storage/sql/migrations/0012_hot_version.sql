-- ChokaQ schema, version 12: a version for hot jobs, so a bulk action's snapshot can tell a
-- pending or running job that changed since its preview (edited, claimed, resurrected) from one
-- that did not, as DLQ jobs already can by edited_at / failed_at. `changed_at` is written by the
-- statements that already update the row (claim, edit, resurrect) — no extra write — and is NULL
-- for a job nobody touched since it was enqueued (its version is then `created_at`). Version 11
-- is taken by another branch (schedules); the ledger allows a gap.
-- `:SCHEMA` is replaced by the quoted, validated schema name before this script runs.
ALTER TABLE :SCHEMA.jobs_hot ADD COLUMN IF NOT EXISTS changed_at timestamptz;
