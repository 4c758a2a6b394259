-- Store the computed estimates of trace $1 under scheme $2 from the Parquet file $3 (job_id, est, hist;
-- pipeline/estimates Spool: one file per scheme, written as each is computed).
INSERT INTO estimates BY NAME SELECT $1 AS trace, $2 AS scheme, job_id, est, hist FROM read_parquet($3);
