-- A trace's content hash is BLAKE3 from now on (hashed on every core; SHA-256 on one core had
-- become the floor of a big sacct --json ingest). traces.sha256 keeps its name, read by every place that
-- copies or compares it (estimates' and grids' trace_sha256, learned_models and their spec.json, study,
-- simulate, reproduce), and its value names the algorithm: 'blake3:' and 64 hex digits. A value without
-- the prefix is the SHA-256 written before this migration, left as it is (the results and models copied
-- from it stay current): `walltime ingest` still recognises the same file as unchanged (it hashes it with
-- SHA-256 only for such a trace), and the next ingest that writes the trace stores its BLAKE3.
-- This view names the algorithm of each stored digest, and the digest alone (hex).
CREATE VIEW trace_content_hash AS
SELECT trace,
       CASE WHEN starts_with(sha256, 'blake3:') THEN 'blake3' ELSE 'sha256' END AS hash_alg,
       CASE WHEN starts_with(sha256, 'blake3:') THEN substr(sha256, 8) ELSE sha256 END AS digest
FROM traces;
