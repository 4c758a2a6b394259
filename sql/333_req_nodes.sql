-- The node range a job asked for, which decides whether Slurm may spread it over nodes
-- (select/cons_tres `_eval_nodes` gathers a job's CPUs over several nodes up to its maximum; a job with no
-- maximum may take one node or several). sql/slurm_replay_jobs.sql says what the replay makes of them.
--   min_nodes  the minimum node count it asked for: sacct ReqNodes (else ReqTRES node=; JSON/YAML
--              tres.requested node), which 22.05 fills from the job's min_nodes at submission (job_mgr.c
--              job_set_req_tres): `-N 1-3` gives 1, `-n 4` without `-N` gives 1. NULL where the log does
--              not say (SWF, tables, jobs loaded before 333).
--   max_nodes  the maximum node count it asked for: the `-N`/`--nodes` option of sacct's SubmitLine before
--              any `--wrap` (`-N 2`, `-N2`, `--nodes=2`, `--nodes 2` give 2; `-N 1-3` gives 3; the last one
--              given counts, as sbatch reads it). NULL where the line gives no node count (the job may
--              spread), where the log has no SubmitLine (22.05's JSON/YAML, SWF, tables, jobs loaded before
--              333) and where the value is not a node count sbatch accepts (stored NULL, never refused).
-- Older files lack the columns: the view points at the legacy table and the next writer rewrites them with
-- NULL (jobs_files._add_columns; not in ADDED: the old ingest did not read them, so they are unknown).
ALTER TABLE jobs_legacy ADD COLUMN min_nodes BIGINT;
ALTER TABLE jobs_legacy ADD COLUMN max_nodes BIGINT;
CREATE OR REPLACE VIEW jobs AS SELECT * FROM jobs_legacy;
