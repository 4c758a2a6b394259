-- The site's Slurm configuration, kept with the trace it was ingested with
-- (`ingest --slurm-conf FILE [--gres-conf FILE] [--assoc FILE]`), so that
-- `simulate --scheduler slurm` replays the log through that cluster model
-- (docs/slurm-replay.md) without the files at hand. One row per file:
--   kind  'slurm.conf', 'gres.conf', 'assoc' (`sacctmgr show assoc -P` output) or 'qos' (`sacctmgr show qos -P`)
--   name  the file's name as given (errors and notes name it)
--   text  its whole text (UTF-8)
CREATE TABLE trace_slurm_files (
    trace VARCHAR NOT NULL,
    kind  VARCHAR NOT NULL,
    name  VARCHAR NOT NULL,
    text  VARCHAR NOT NULL
);
