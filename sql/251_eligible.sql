-- Issue 25: Eligible. Holds, dependencies, --begin and requeues make a Slurm
-- job eligible later than its Submit; the queue wait the site can act on
-- starts at Eligible. `eligible` is the log's Eligible in seconds from the
-- trace start (as `submit`; NULL where the log has none). `traces.release`
-- is the rule the trace's `wait` and the replay's release time follow:
-- 'eligible' (wait = start - eligible where known, else start - submit; the
-- replay releases the job then) or 'submit' (`ingest --release submit`: as
-- before). NULL: not a sacct trace, or loaded before 251 (wait from submit).
-- Files of jobs written before 251 lack the column: the view reads them by
-- name (jobs_files.view_sql), so their eligible is NULL.
ALTER TABLE jobs_legacy ADD COLUMN eligible BIGINT;
ALTER TABLE traces ADD COLUMN release VARCHAR;
