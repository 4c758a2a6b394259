-- Insert a run's jobs from the registered Arrow table new_sim_jobs.
INSERT INTO sim_jobs BY NAME
SELECT run_id::VARCHAR AS run_id, job_id, month::VARCHAR AS month, submit, run, nodes, req,
       est_wait, est_run, start, "end", wait, backfilled, predicted_start, score, first_bound
FROM new_sim_jobs;
