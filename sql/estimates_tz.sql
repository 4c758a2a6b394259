-- The zone of trace $1 (traces.tz; NULL: none): the learned scheme's hour and weekday are local.
-- pipeline/estimates load_jobs adds it to the jobs as the column tz.
SELECT tz FROM traces WHERE trace = $1;
