-- Remove the stored grid $2 of trace $1 (before storing it afresh).
DELETE FROM estimate_grid WHERE trace = $1 AND grid = $2;
