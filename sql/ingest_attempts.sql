-- The earlier attempts of requeued jobs (sacct --duplicates), registered as new_attempts: times as Unix seconds.
INSERT INTO job_attempts BY NAME
SELECT trace, job_id, slurm_id, attempt, state, exit_code,
       to_timestamp(submit_epoch) AS submit_ts, to_timestamp(eligible_epoch) AS eligible_ts,
       to_timestamp(start_epoch) AS start_ts, to_timestamp(end_epoch) AS end_ts,
       run, cpus, nodes, gpus, line
FROM new_attempts
