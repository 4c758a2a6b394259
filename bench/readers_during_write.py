"""How long does a reader wait while a writer works? (issue 9)

Loads a real trace into a scratch warehouse, then runs a `walltime run`
study of several simulations (writes each result as it finishes) and, while
it runs, asks `walltime sql` the job count again and again in fresh
processes. Prints every reader's latency summary and the writer's time.

    WALLTIME_TRACES=/work/shared/traces python bench/readers_during_write.py [TRACE.swf.gz]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TRACES = Path(os.environ.get("WALLTIME_TRACES", "../shared/traces"))


def cli(*args, wh):
    return subprocess.run([sys.executable, "-m", "pipeline", *args, "--warehouse", str(wh)],
                          capture_output=True, text=True, env={**os.environ, "WALLTIME_PROGRESS": "0"})


def main() -> None:
    trace = TRACES / (sys.argv[1] if len(sys.argv) > 1 else "KTH-SP2-1996-2.1-cln.swf.gz")
    with tempfile.TemporaryDirectory() as d:
        wh = Path(d) / "wh"
        assert cli("ingest", str(trace), "--name", "t", wh=wh).returncode == 0
        study = Path(d) / "s.toml"
        study.write_text(f'[[traces]]\npath = "{trace}"\nname = "t"\n[[simulations]]\n'
                         'policy = ["fcfs", "sjf", "wfp"]\nbackfill = ["easy", "conservative"]\nsplit = "month"\n')
        t0 = time.perf_counter()
        writer = subprocess.Popen([sys.executable, "-m", "pipeline", "run", str(study), "--workers", "1",
                                   "--warehouse", str(wh)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  env={**os.environ, "WALLTIME_PROGRESS": "0"})
        waits, failures, opens = [], 0, []
        from pipeline.warehouse import Warehouse

        while writer.poll() is None:
            a = time.perf_counter()
            ran = cli("sql", "SELECT count(*) FROM jobs", "--csv", wh=wh)
            waits.append(time.perf_counter() - a)
            failures += ran.returncode != 0
            for _ in range(20):  # in this process: the reader's own wait, without start-up
                a = time.perf_counter()
                con = Warehouse(wh).reader()
                con.execute("SELECT count(*) FROM jobs").fetchall()
                con.close()
                opens.append(time.perf_counter() - a)
                time.sleep(0.05)
        writer_s = time.perf_counter() - t0
        assert writer.returncode == 0, writer.stderr.read()
        idle = []
        for _ in range(5):
            a = time.perf_counter()
            cli("sql", "SELECT count(*) FROM jobs", "--csv", wh=wh)
            idle.append(time.perf_counter() - a)
    print(f"{trace.name}: `walltime run` of 6 simulations took {writer_s:.1f} s")
    print(f"readers during it: {len(waits)} answered, {failures} refused; latency median "
          f"{statistics.median(waits):.2f} s, max {max(waits):.2f} s "
          f"(idle warehouse: median {statistics.median(idle):.2f} s, the process start-up included)")
    opens.sort()
    print(f"in-process readers during it: {len(opens)} opened+queried; median {statistics.median(opens) * 1000:.0f} ms, "
          f"95th percentile {opens[int(0.95 * len(opens))] * 1000:.0f} ms, max {opens[-1] * 1000:.0f} ms")


if __name__ == "__main__":
    main()
