-- Every stored estimate of trace $1, for its Parquet mirror.
SELECT trace, scheme, job_id, est, hist FROM estimates WHERE trace = $1 ORDER BY scheme, job_id;
