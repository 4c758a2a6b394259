-- Per-job simulation results move out of the DuckDB file: each
-- run's jobs are one Parquet file, parquet/sim_jobs/<run_id>.parquet, written
-- by the process that ran the loop; `sim_jobs` becomes a view over the files
-- of committed runs, made per connection (pipeline/sim_results.py). The old
-- table keeps its rows under a new name until the first writer moves them out
-- to files; the view shows them meanwhile, so nothing disappears.
ALTER TABLE sim_jobs RENAME TO sim_jobs_legacy;
