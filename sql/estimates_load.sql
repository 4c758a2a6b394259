-- One stored scheme's estimates: $1 trace, $2 canonical scheme.
SELECT job_id, est FROM estimates WHERE trace = $1 AND scheme = $2 ORDER BY job_id;
