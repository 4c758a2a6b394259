-- Offered load per month of submission of one run ($1): the work submitted in
-- the month over the machine's capacity for the month's length (Mu'alem &
-- Feitelson Table 1 "load"). Months are calendar months of the trace zone.
SELECT s.month,
       sum(s.nodes * s.run)::DOUBLE
         / (any_value(r.capacity)
            * date_diff('second', strptime(s.month, '%Y-%m'),
                        strptime(s.month, '%Y-%m') + INTERVAL 1 MONTH)) AS load
FROM sim_jobs s JOIN runs r USING (run_id)
WHERE s.run_id = $1
GROUP BY s.month
ORDER BY s.month;
