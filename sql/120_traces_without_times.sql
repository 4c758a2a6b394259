-- A sacct dump made with the default fields (JobID|JobName|Partition|
-- Account|AllocCPUS|State|ExitCode) has no Submit/Start/End. It is loaded
-- with its names, sizes, states and exit codes, and NULL submit/wait/run;
-- the stages that need times refuse it (pipeline/timed.py).
ALTER TABLE jobs ALTER COLUMN submit DROP NOT NULL;
ALTER TABLE traces ADD COLUMN has_times BOOLEAN;  -- FALSE: no submit/start/end in the log (NULL: older rows, with times)
