-- Fill the summary columns of one trace's row from its jobs (computed from the
-- parsed frame, before its files are committed). $1 = trace, $2/$3 = first/last
-- submit_ts, $4/$5 = distinct user_id/group_id.
UPDATE traces SET
    first_submit = $2,
    last_submit  = $3,
    users        = $4,
    groups       = $5
WHERE traces.trace = $1;
