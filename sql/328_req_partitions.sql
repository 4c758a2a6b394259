-- The partitions a job was submitted to, as the log says them ("batch,small": Slurm may run it in
-- either, and the Slurm-shaped replay queues it in each). From sacct's SubmitLine (`-p LIST`, `-pLIST`,
-- `--partition=LIST`, `--partition LIST`, before any `--wrap`), else a never-started job's Partition when
-- it is a list; NULL where the log does not say (no SubmitLine or no such option -- a partition set by
-- `#SBATCH -p` in the script is not on the line --, JSON dumps, SWF, tables, jobs loaded before 328).
-- Older files lack the column: the view points at the legacy table and the next writer rewrites them with
-- NULL (jobs_files._add_columns).
ALTER TABLE jobs_legacy ADD COLUMN req_partitions VARCHAR;
CREATE OR REPLACE VIEW jobs AS SELECT * FROM jobs_legacy;
