-- Tang Eq. 4's weight of one job, P_i = (wait / t_req)^3 x nodes under WFP (Eq. 5 as printed: t_req is
-- the user's request, the same for every run of a trace), else the wait (FCFS: "the score of FCFS can be
-- represented by the job's waiting time"). One definition for run_metrics' weighted wait
-- (sql/metrics_run.sql) and the reproduction's month sums of it (sql/reproduce_tang_ww_months.sql); kept
-- in step with tests/naive_metrics.py eq4_weight.
CREATE OR REPLACE MACRO eq4_weight(policy, wait, req, nodes) AS
    CASE WHEN policy = 'wfp' THEN power(wait::DOUBLE / greatest(req, 1), 3) * nodes ELSE wait::DOUBLE END;
