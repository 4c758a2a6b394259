-- `walltime evaluate` chooses on two loads: the first third is
-- replayed as logged (avebsld) and with its jobs arriving TUNE_LOAD = 1.25
-- times as often (avebsld_loaded: interarrival times / 1.25); a candidate's
-- score is the mean of its AVEbsld over the baseline's (EASY with the users'
-- requests) at each load, and the family's lowest score is chosen. Rows
-- stored before this migration were chosen on avebsld alone: their score is
-- that, and avebsld_loaded is unknown.
ALTER TABLE evaluate_tuning ADD COLUMN avebsld_loaded DOUBLE;  -- AVEbsld with arrivals 1.25x as frequent
ALTER TABLE evaluate_tuning ADD COLUMN score DOUBLE;           -- what the choice minimised
UPDATE evaluate_tuning SET score = avebsld;
