-- Fill the summary columns of one trace's row from its jobs. $1 = trace.
UPDATE traces SET
    first_submit = s.first_submit,
    last_submit  = s.last_submit,
    users        = s.users,
    groups       = s.groups
FROM (
    SELECT min(submit_ts) AS first_submit, max(submit_ts) AS last_submit,
           count(DISTINCT user_id) AS users, count(DISTINCT group_id) AS groups
    FROM jobs WHERE trace = $1
) AS s
WHERE traces.trace = $1;
