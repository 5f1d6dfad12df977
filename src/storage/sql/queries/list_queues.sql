-- Purpose: every known queue with its controls, ordered by name.
-- Parameters: none
-- Locking: none.
SELECT * FROM :SCHEMA.queues ORDER BY name
