"""What modelling QOS preemption changes on the lab's W4 runs (tests/data/slurm-replay): the Slurm replay with
the model (slurm-preempt.conf and the runs' QOS dumps) beside the same replay without it (slurm.conf: no
preemption; a requeued job is replayed as its last attempt, released when the real run requeued it).

    python bench/slurm_preemption.py [--lab tests/data/slurm-replay]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from pipeline.ingest.load import ingest
from pipeline.simulate import make_config, simulate
from pipeline.simulate.slurm.validate import figures, lab_options
from pipeline.warehouse import Warehouse


def replays(lab: Path, preempt: bool) -> dict:
    with tempfile.TemporaryDirectory() as d:
        wh = Warehouse(d)
        traces = []
        for run in sorted(lab.glob("runs/W4-r*")):
            opts = lab_options(lab, run)
            if not preempt:
                opts = replace(opts, slurm_conf=str(lab / "slurm.conf"))
            ingest([run / "sacct.txt"], wh, name=run.name.lower(), options=opts)
            traces.append(run.name.lower())
        runs = [simulate(wh, t, make_config(scheduler="slurm")).run_id for t in traces]
        con = wh.reader()
        try:
            return figures(con, traces, runs, 7)
        finally:
            con.close()


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--lab", default=str(Path(__file__).resolve().parent.parent / "tests/data/slurm-replay"))
    lab = Path(ap.parse_args().lab)
    t = time.perf_counter()
    for preempt, words in ((True, "with QOS preemption modelled"), (False, "without (the log's requeues)")):
        f = replays(lab, preempt)
        r = f["replays"]
        print(f"W4 {words}: mean wait {min(x['mean_wait'] for x in r):.0f}-{max(x['mean_wait'] for x in r):.0f} s "
              f"(real {f['real_range'][0]:.0f}-{f['real_range'][1]:.0f} s), inside the window "
              f"{100 * min(x['inside'] for x in r):.0f}-{100 * max(x['inside'] for x in r):.0f}%, Spearman "
              f"{min(x['spearman'] for x in r):.3f}-{max(x['spearman'] for x in r):.3f}")
    print(f"{time.perf_counter() - t:.1f} s")
