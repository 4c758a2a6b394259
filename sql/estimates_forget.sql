-- Remove stored estimates and accuracy of trace $1 for the schemes in list $2
-- (before storing them afresh).
DELETE FROM estimates WHERE trace = $1 AND list_contains($2::VARCHAR[], scheme);
DELETE FROM estimate_accuracy WHERE trace = $1 AND list_contains($2::VARCHAR[], scheme);
