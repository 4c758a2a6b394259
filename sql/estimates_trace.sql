-- The trace an estimate command works on: $1 name -> content hash and job count.
SELECT sha256, jobs FROM traces WHERE trace = $1;
