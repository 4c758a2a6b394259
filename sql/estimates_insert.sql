-- Store computed estimates (registered Arrow frame new_estimates).
INSERT INTO estimates BY NAME SELECT trace, scheme, job_id, est, hist FROM new_estimates;
