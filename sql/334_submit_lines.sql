-- Whether a trace's log had submit lines, so that a NULL jobs.max_nodes can be read (333). A job's
-- max_nodes is the -N of its SubmitLine; NULL means "no -N given" (it may spread over nodes) only when the
-- log had the line at all.
--   submit_lines  TRUE: the sacct text dump has a SubmitLine column (max_nodes and req_partitions were read
--                 from it); FALSE: a sacct dump without one (a --format without SubmitLine; 22.05's
--                 sacct --json/--yaml, whose openapi 0.0.38 has no submit line): NULL max_nodes says nothing;
--                 NULL: not a sacct log (SWF, tables: no node range either), or loaded before 334 (unknown:
--                 the replay then guesses from the jobs, as before: some job with a -N or a -p list).
ALTER TABLE traces ADD COLUMN submit_lines BOOLEAN;
