-- ChokaQ schema, version 19: the audit trail in the order the database recorded it. Entries were
-- ordered by id, a UUIDv7 made from the clock of the process that wrote them, so two processes
-- with skewed clocks (The Deck and a worker running a bulk action) could list a later action
-- first. `seq` comes from one sequence of the database, taken as each entry is inserted; the
-- entries already there are numbered in their old order (time, then id).
-- `:SCHEMA` is replaced by the quoted, validated schema name before this script runs.
CREATE SEQUENCE IF NOT EXISTS :SCHEMA.operator_actions_seq AS bigint;
ALTER TABLE :SCHEMA.operator_actions ADD COLUMN IF NOT EXISTS seq bigint;
WITH numbered AS (
  SELECT id, row_number() OVER (ORDER BY at, id) AS n FROM :SCHEMA.operator_actions
)
UPDATE :SCHEMA.operator_actions o SET seq = numbered.n FROM numbered WHERE o.id = numbered.id;
SELECT setval(
  ':SCHEMA.operator_actions_seq',
  (SELECT coalesce(max(seq), 0) + 1 FROM :SCHEMA.operator_actions),
  false
);
ALTER SEQUENCE :SCHEMA.operator_actions_seq OWNED BY :SCHEMA.operator_actions.seq;
ALTER TABLE :SCHEMA.operator_actions
  ALTER COLUMN seq SET DEFAULT nextval(':SCHEMA.operator_actions_seq'),
  ALTER COLUMN seq SET NOT NULL;
CREATE UNIQUE INDEX IF NOT EXISTS operator_actions_seq_idx ON :SCHEMA.operator_actions (seq DESC);
