"""``walltime demo``: the whole pipeline on a built-in synthetic workload.

The demo is an ordinary study: it writes the workload and a study file into
``<warehouse>/demo/`` and runs that file, so a user can open, edit and re-run
it with ``walltime run``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..generate import generate_file
from ..warehouse import Warehouse
from .config import load_study
from .runner import StudyResult, run_study

CAPACITY = 256
TRACE = "demo"  # the trace name the study gives the workload
LOAD = 0.75
TANG = "tang:key=user_project_req,window=30d,stat={}"

STUDY = """\
# The study `walltime demo` runs; edit and re-run it with
#   walltime run {toml} --warehouse {wh}
[study]
name = "demo"

[[traces]]
path = "{swf}"
name = "demo"

[estimates]
schemes = ["request", "actual", "{p95}", "{p85}", "{p70}", "klusacek:last=5", "ave2"]

[[simulations]]
policy = ["fcfs", "wfp"]
backfill = ["easy", "conservative"]
adjust = ["regular", "selective"]
estimate = ["request", "{p95}"]
split = "month"

[report]
out = "{out}"
"""


def run_demo(wh: Warehouse, jobs: int = 20000, seed: int = 1, out: Path = Path("walltime-demo.html"),
             workers: int | None = None, say: Callable[[str], None] | None = None) -> StudyResult:
    folder = wh.root / "demo"
    folder.mkdir(parents=True, exist_ok=True)
    swf = folder / f"demo-{jobs}-{seed}.swf"
    if not swf.exists():
        if say:
            say(f"generating {jobs:,} jobs -> {swf}")
        generate_file(swf, jobs=jobs, seed=seed, capacity=CAPACITY, load=LOAD)
    toml = folder / "demo.toml"
    toml.write_text(STUDY.format(toml=toml, wh=wh.root, swf=swf.resolve(), out=Path(out).resolve(),
                                 p95=TANG.format("p95"), p85=TANG.format("p85"), p70=TANG.format("p70")))
    if say:
        say(f"running the study {toml}")
    return run_study(load_study(toml), wh, workers=workers)
