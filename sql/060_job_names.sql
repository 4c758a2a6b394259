-- Names and Slurm structure in `jobs`, one schema for every format.
-- sacct/table traces fill the strings from the log (and the integer ids with
-- codes 1, 2, ... of the strings); SWF traces carry their ids as text, so
-- every later stage can key on the strings. Existing rows get the ids as text.
ALTER TABLE jobs ADD COLUMN "user"        VARCHAR;  -- user name (SWF: user_id)
ALTER TABLE jobs ADD COLUMN group_name    VARCHAR;  -- Unix group (SWF: group_id)
ALTER TABLE jobs ADD COLUMN account       VARCHAR;  -- account, Tang's "project" (SWF: group_id)
ALTER TABLE jobs ADD COLUMN "partition"   VARCHAR;  -- partition (SWF: partition_id)
ALTER TABLE jobs ADD COLUMN qos           VARCHAR;  -- QOS (SWF: queue_id)
ALTER TABLE jobs ADD COLUMN job_name      VARCHAR;  -- job name (SWF: exe_id)
ALTER TABLE jobs ADD COLUMN slurm_id      VARCHAR;  -- JobID as printed: 123, 15_3, 15_[4-9], 20+1
ALTER TABLE jobs ADD COLUMN array_job_id  BIGINT;   -- 15 for 15_3
ALTER TABLE jobs ADD COLUMN array_task_id BIGINT;   -- 3 for 15_3; NULL for an unexpanded 15_[4-9]
ALTER TABLE jobs ADD COLUMN het_job_id    BIGINT;   -- 20 for 20+1
ALTER TABLE jobs ADD COLUMN het_offset    BIGINT;   -- 1 for 20+1
ALTER TABLE jobs ADD COLUMN gpus          BIGINT;   -- gres/gpu of AllocTRES (else ReqTRES)
ALTER TABLE jobs ADD COLUMN state         VARCHAR;  -- State verbatim, e.g. 'CANCELLED by 1001'
ALTER TABLE jobs ADD COLUMN exit_code     VARCHAR;  -- ExitCode verbatim, code:signal

UPDATE jobs SET "user" = CAST(user_id AS VARCHAR),
                group_name = CAST(group_id AS VARCHAR),
                account = CAST(group_id AS VARCHAR),
                "partition" = CAST(partition_id AS VARCHAR),
                qos = CAST(queue_id AS VARCHAR),
                job_name = CAST(exe_id AS VARCHAR);

ALTER TABLE traces ADD COLUMN size_unit      VARCHAR;  -- what procs counts: 'cpus' or 'nodes' (SWF: 'procs')
ALTER TABLE traces ADD COLUMN steps_skipped  BIGINT;   -- sacct job-step lines (123.batch, ...) not loaded
ALTER TABLE traces ADD COLUMN never_started  BIGINT;   -- jobs with no start (no wait, no run)
ALTER TABLE traces ADD COLUMN no_limit       BIGINT;   -- jobs with Timelimit UNLIMITED/Partition_Limit (req NULL)
ALTER TABLE traces ADD COLUMN capacity_source VARCHAR; -- where capacity came from: header, --capacity, slurm.conf

-- Size of each partition: from --capacity PARTITION=N or slurm.conf. `nodes`
-- lists node:size pairs (slurm.conf only) so that overlapping partitions
-- are not counted twice when several are simulated together.
CREATE TABLE trace_partitions (
    trace      VARCHAR NOT NULL,
    "partition" VARCHAR NOT NULL,
    capacity   BIGINT NOT NULL,
    nodes      VARCHAR,
    source     VARCHAR NOT NULL,
    PRIMARY KEY (trace, "partition")
);
