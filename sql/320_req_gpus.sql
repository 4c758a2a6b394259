-- The GPUs a job asked for, apart from the GPUs it held.
--   gpus      allocated GPUs (sacct AllocTRES gres/gpu, else ReqTRES; JSON/YAML
--             tres.allocated, else tres.requested; tables: the `gpus` column)
--   req_gpus  requested GPUs: sacct ReqTRES gres/gpu (0 when the dump has a
--             ReqTRES and the job's names no GPU), JSON/YAML tres.requested
--             (0 when it lists cpu/node/mem but no gres/gpu), tables: the
--             `req_gpus` column (Eagle preset: gpus_req); NULL where the log
--             cannot say (no ReqTRES column, SWF, jobs loaded before 320)
-- A `--exclusive` job holds every GPU of its node without asking for one
-- (trust lab job 12: AllocTRES gres/gpu=2, ReqTRES without gpu): counted in
-- gpus, not in req_gpus.
-- Files of jobs written before 320 lack the column: as migrations 240 and
-- 251 do, the view points at the legacy table meanwhile and the next writer
-- rewrites them with req_gpus NULL (jobs_files._add_columns; not in ADDED:
-- the old ingest did not read the request, so it is unknown).
ALTER TABLE jobs_legacy ADD COLUMN req_gpus BIGINT;
CREATE OR REPLACE VIEW jobs AS SELECT * FROM jobs_legacy;
