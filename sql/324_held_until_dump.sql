-- Jobs running at the dump keep their CPUs in the replay: a job
-- RUNNING or SUSPENDED when sacct ran has no run time (its run is censored,
-- NULL: no R, estimate history or accuracy learns from it), but it held its
-- CPUs from its start to the dump at least. traces.dump_end is the time the
-- dump was taken, on the jobs' submit clock (seconds after the first
-- submission): the latest such job's Start + Elapsed (NULL: no job was running,
-- or a trace loaded before 324). The replay runs each such job for
-- dump_end - its logged start (sql/simulate_inputs.sql), so the machine does
-- not empty at the end of the log; runs.held_running counts them.
ALTER TABLE traces ADD COLUMN dump_end BIGINT;
ALTER TABLE runs ADD COLUMN held_running BIGINT;
