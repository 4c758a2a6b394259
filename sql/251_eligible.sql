-- Eligible. Holds, dependencies, --begin and requeues make a Slurm
-- job eligible later than its Submit; the queue wait the site can act on
-- starts at Eligible. `eligible` is the log's Eligible in seconds from the
-- trace start (as `submit`; NULL where the log has none). `traces.release`
-- is the rule the trace's `wait` and the replay's release time follow:
-- 'eligible' (wait = start - eligible where known, else start - submit; the
-- replay releases the job then) or 'submit' (`ingest --release submit`: as
-- before). NULL: not a sacct trace, or loaded before 251 (wait from submit).
-- Files of jobs written before 251 lack the column: as migration 240 does,
-- the view points at the legacy table meanwhile and the next writer rewrites
-- them with eligible NULL (jobs_files._add_columns; not in ADDED: NULL).
ALTER TABLE jobs_legacy ADD COLUMN eligible BIGINT;
ALTER TABLE traces ADD COLUMN release VARCHAR;
CREATE OR REPLACE VIEW jobs AS SELECT * FROM jobs_legacy;
