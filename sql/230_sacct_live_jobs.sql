-- Slurm logs as sites really have them.
-- A job RUNNING or SUSPENDED when sacct was run is censored: its run is not
-- known (NULL), so no R, estimate, accuracy or history learns from it, and
-- simulate leaves it out (runs.left_out_running, part of left_out_no_run).
ALTER TABLE traces ADD COLUMN running_at_dump BIGINT;  -- sacct: jobs started but not ended at the dump (run NULL)
ALTER TABLE runs ADD COLUMN left_out_running BIGINT;   -- of left_out_no_run: jobs running at the dump (NULL: older runs)
-- The options that change what is stored from the same bytes (format, --tz,
-- --size, --capacity, slurm.conf's content, --delimiter, table mappings), as
-- canonical JSON: a trace is the same only with the same bytes and these.
ALTER TABLE traces ADD COLUMN ingest_options VARCHAR;  -- NULL: loaded before 230 (compared by content only)
