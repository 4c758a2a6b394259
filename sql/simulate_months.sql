-- The months of submission of a trace, in calendar order (index = month_idx
-- of simulate_inputs.sql).
SELECT DISTINCT month FROM jobs WHERE trace = $1 ORDER BY month;
