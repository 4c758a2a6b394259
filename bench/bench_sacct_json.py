"""`sacct --json` ingest speed: the whole `walltime ingest` command on a
synthetic dump of N jobs (default 1,000,000) made from a real one's records,
against the text reader on a text dump of the same number of jobs, same run.

The JSON dump: the job records of tests/data/slurm/json-lab-sacct.json (a
real `sacct --json` of the lab, Slurm 22.05.8: every attempt, arrays, het
jobs, steps with their TRES) copied verbatim, copy k with every non-zero
`job_id` + k*1000 and every epoch time (10 digits) + k days, between the
real dump's own head and tail. The text dump: bench/synth_sacct.py on the
shared lab's slurm-lab-sacct.txt (steps included), cut to the same number of
jobs. Both are timed as a user waits for them: a new process, a new
warehouse, `--tz UTC`; the peak RSS is the command's (getrusage of the
child). Prints jobs/s and MB/s of each and their ratio.

    .venv/bin/python bench/bench_sacct_json.py [--jobs 1000000] [--keep DIR]

Needs ~14 GB of disk per million jobs for the JSON dump (deleted after,
unless --keep).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))

import synth_sacct  # noqa: E402

SRC = REPO / "tests" / "data" / "slurm" / "json-lab-sacct.json"
TRACES = Path(os.environ.get("WALLTIME_TRACES") or REPO.parent / "shared" / "traces")
DAY = 86400
_NUM = re.compile(rb'("job_id": )([1-9]\d*)|(": )(1\d{9})\b')


def records(raw: bytes) -> tuple[bytes, list[bytes], bytes, bytes]:
    """The dump's head, its job records verbatim, and its tail (sacct's layout: one record per
    block at the first record's indentation)."""
    m = re.search(rb'"jobs"\s*:\s*\[\s*\n([ ]*)\{', raw)
    indent = m.group(1)
    start = m.end() - 1
    closer = b"\n" + indent + b"}"
    out, pos = [], start
    while True:
        k = raw.find(closer, pos) + len(closer)
        out.append(raw[pos:k])
        nxt = raw[k:].lstrip()
        if not nxt.startswith(b","):
            return raw[:start], out, raw[k:], indent
        pos = raw.index(b"{", k)


def template(rec: bytes) -> tuple[list[bytes], list[tuple[int, int]]]:
    """A record cut at the numbers a copy changes: (pieces, [(kind, value)]), kind 0 an id, 1 a time."""
    pieces, nums, at = [], [], 0
    for m in _NUM.finditer(rec):
        g = 2 if m.group(2) else 4
        pieces.append(rec[at:m.start(g)])
        nums.append((0 if g == 2 else 1, int(m.group(g))))
        at = m.end(g)
    pieces.append(rec[at:])
    return pieces, nums


def build_json(jobs: int, out: Path) -> int:
    head, recs, tail, indent = records(SRC.read_bytes())
    temps = [template(r) for r in recs]
    sep = b",\n" + indent  # as sacct separates its records
    n = 0
    with open(out, "wb", buffering=16 << 20) as fh:
        fh.write(head)
        k = 0
        while n < jobs:
            buf = []
            for pieces, nums in temps:
                if n >= jobs:
                    break
                parts = [pieces[0]]
                for (kind, v), p in zip(nums, pieces[1:]):
                    parts.append(str(v + k * 1000 if kind == 0 else v + k * DAY).encode())
                    parts.append(p)
                buf.append(b"".join(parts))
                n += 1
            fh.write((b"" if k == 0 else sep) + sep.join(buf))
            k += 1
        fh.write(tail)
    return n


def build_text(jobs: int, out: Path) -> int:
    """synth_sacct's dump of the shared lab, with enough lines for ``jobs`` jobs (steps kept), cut there."""
    src = TRACES / "slurm-lab-sacct.txt"
    body = [ln for ln in src.read_text().splitlines()[1:] if ln]
    per = len(body) / sum(1 for ln in body if "." not in ln.split("|", 1)[0])
    lines = synth_sacct.build(src, int(jobs * per) + len(body), out)
    # cut after the jobs-th job line (its steps kept)
    n, keep = 0, 0
    with open(out, "rb") as fh:
        data = fh.read()
    pos = data.index(b"\n") + 1
    while pos < len(data):
        e = data.index(b"\n", pos) + 1
        if b"." not in data[pos:data.index(b"|", pos)]:
            if n == jobs:
                break
            n += 1
        pos = e
    keep = pos
    with open(out, "r+b") as fh:
        fh.truncate(keep)
    return n if lines else 0


def run(args: list[str]) -> tuple[float, float, dict]:
    """Wall seconds, peak RSS (MB) and the --json result of one `walltime ingest` process. The peak is
    /usr/bin/time's (a small process that forks the command): wait4 on a child of this process would
    report this process's own memory (Linux keeps the pre-exec peak in the child's ru_maxrss)."""
    import json

    prefix = ["/usr/bin/time", "-f", "MAXRSS %M"] if Path("/usr/bin/time").exists() else []
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen([*prefix, str(REPO / ".venv" / "bin" / "walltime"), "ingest", *args, "--json"],
                             stdout=out, stderr=err, env={**os.environ, "WALLTIME_PROGRESS": "0"})
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t0
        out.seek(0), err.seek(0)
        text = err.read().decode()
        if p.returncode:
            sys.exit(f"walltime ingest {' '.join(args)} failed: {text.strip()}")
        kb = [int(ln.split()[1]) for ln in text.splitlines() if ln.startswith("MAXRSS ")]
        peak = kb[-1] / 1024 if kb else float("nan")
        return wall, peak, {**json.loads(out.read()), "cpu_s": usage.ru_utime + usage.ru_stime}


def hash_floor(path: Path) -> float:
    """Wall seconds of the content hash over the file as the ingest computes it (reader.content_digest:
    BLAKE3 on every core, mapped, 64 MiB at a time), in a process of its own (a mapping in this process
    would show in the next child's peak RSS)."""
    code = ("import mmap, sys, time\n"
            "from pipeline.ingest.reader import content_digest\n"
            "with open(sys.argv[1], 'rb') as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as m:\n"
            "    t0 = time.perf_counter(); content_digest(m); print(time.perf_counter() - t0)\n")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True,
                         cwd=REPO)
    return float(out.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=1_000_000)
    ap.add_argument("--keep", type=Path, help="build the dumps here and keep them")
    ap.add_argument("--json-dump", type=Path, help="a JSON dump built before (--keep) of --jobs records: not rebuilt")
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-sacct-json-", dir=a.keep))
    try:
        js, tx = a.json_dump or tmp / "dump.json", tmp / "dump.txt"
        t0 = time.perf_counter()
        nj = a.jobs if a.json_dump else build_json(a.jobs, js)
        nt = build_text(a.jobs, tx)
        print(f"built {nj:,} JSON job records ({js.stat().st_size / 1e9:.2f} GB) and {nt:,} text jobs "
              f"({tx.stat().st_size / 1e9:.2f} GB) in {time.perf_counter() - t0:.0f} s")
        subprocess.run(["sync"], check=False)
        hash_floor(js)  # (reads the dump into the page cache: both commands then start warm)
        rows = []
        for label, path, extra in (("sacct --json", js, []), ("sacct text", tx, ["--format", "sacct"])):
            wh = tmp / f"wh-{path.suffix[1:]}"
            wall, peak, doc = run([str(path), "--warehouse", str(wh), "--tz", "UTC", *extra])
            t = doc["traces"][0]
            rows.append((label, t["jobs"], wall, peak, path.stat().st_size))
            cpu = doc["cpu_s"]
            print(f"{label}: {t['jobs']:,} jobs in {wall:.1f} s whole command = {t['jobs'] / wall:,.0f} jobs/s, "
                  f"{path.stat().st_size / wall / 1e6:,.0f} MB/s; {cpu:.1f} CPU-s = {t['jobs'] / cpu:,.0f} jobs per "
                  f"CPU-s (load average {os.getloadavg()[0]:.1f}); peak RSS {peak:,.0f} MB "
                  f"(parse {t['timings']['parse_s']:.1f} s, write {t['timings']['write_s']:.1f} s)")
            shutil.rmtree(wh)
        (_, j1, w1, _, _), (_, j2, w2, _, _) = rows
        floor = hash_floor(js)
        print(f"floor: BLAKE3 of the JSON dump alone (traces.sha256, every core) {floor:.1f} s = "
              f"{js.stat().st_size / floor / 1e9:.2f} GB/s, i.e. {j1 / floor:,.0f} jobs/s at most for a reader "
              f"that hashes the content")
        print(f"ratio: the JSON reader does {j1 / w1:,.0f} jobs/s, the text reader {j2 / w2:,.0f} jobs/s on the same "
              f"number of jobs: JSON at {(j1 / w1) / (j2 / w2):.2f}x the text reader's speed")
    finally:
        if a.keep is None:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
