-- A node-aware run's per-job node data (node set, T_node, plan changes, pinning)
-- moves out of the DuckDB file like sim_jobs did in 070: one Parquet
-- file per run, parquet/sim_nodes/<run_id>.parquet, written by the process
-- that ran the loop before the run's catalogue rows commit; `sim_nodes` becomes a
-- view over the files of committed runs, made per connection
-- (pipeline/sim_results.py). node_runs (one row per run) stays here: it is
-- catalogue. The old table keeps its rows under a new name until the first
-- writer moves them out to files; the view shows them meanwhile.
ALTER TABLE sim_nodes RENAME TO sim_nodes_legacy;
