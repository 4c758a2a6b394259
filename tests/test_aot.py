"""The loop compiled ahead of time (pipeline/simulate/aot.py) is the same loop:
job by job equal to the naive twin on generated workloads and to the JIT on a
real trace, and `walltime simulate` runs it without importing Numba."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import naive_sim
from conftest import run_cli, trace_path
from kernel_checks import assert_same
from kernel_inputs import kernel_args, trace_arrays
from pipeline.simulate import aot, kernel
from test_kernel import BACKFILLS, POLICIES, workloads


def test_codes_agree_with_the_kernel():
    assert (aot.POLICIES, aot.BACKFILLS, aot.OVERRUNS) == (kernel.POLICIES, kernel.BACKFILLS, kernel.OVERRUNS)
    assert aot.EASY_SJBF == kernel.EASY_SJBF


def test_module_name_follows_the_sources(tmp_path, monkeypatch):
    """An edit of any kernel module (or of aot.py) names another module: never stale code."""
    name = aot.module_name()
    assert name == aot.module_name() and name.startswith("_walltime_loop_")
    fake = tmp_path / "simulate"
    fake.mkdir()
    for m in (*aot.MODULES, "aot"):
        (fake / f"{m}.py").write_bytes((aot.HERE / f"{m}.py").read_bytes())
    monkeypatch.setattr(aot, "HERE", fake)
    assert aot.module_name() == name
    (fake / "_heaps.py").write_text((fake / "_heaps.py").read_text() + "\n# edited\n")
    assert aot.module_name() != name


@pytest.fixture(scope="module")
def compiled():
    fn = aot.ensure()  # builds once per source version (about 25 s of CPU), then loads
    if fn is None:
        pytest.skip("no C compiler: the loop cannot be compiled ahead of time here")
    return fn


@pytest.mark.slow
@pytest.mark.parametrize("backfill", BACKFILLS)
@pytest.mark.parametrize("policy", POLICIES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(case=workloads())
def test_compiled_loop_matches_the_naive_twin(compiled, policy, backfill, case):
    w, capacity = case
    for (adjust, overrun), predict in itertools.product(
            (("regular", "request"), ("selective", "double")), (False, True)):
        est_run = w["est"] if adjust == "regular" else w["req"]
        args = (w["submit"], w["job_id"], w["run"], w["nodes"], w["est"], est_run, w["req"], capacity,
                aot.POLICIES[policy], aot.BACKFILLS[backfill], aot.OVERRUNS[overrun], predict)
        assert_same(compiled(*args), naive_sim.simulate(*args), f"{policy}/{backfill}/{adjust}/{overrun}/{predict}")


@pytest.mark.slow
def test_compiled_loop_equals_the_jit_on_a_real_trace(compiled, tmp_path):
    w, capacity = trace_arrays(trace_path("KTH-SP2-1996-2.1-cln.swf.gz"), tmp_path / "wh")
    for policy, backfill in itertools.product(range(4), range(3)):
        args = kernel_args(w, capacity, policy, backfill, predict=backfill != 2)
        for a, b in zip(compiled(*args), kernel.simulate(*args)):
            assert np.array_equal(a, b), (policy, backfill)


@pytest.mark.slow
def test_simulate_uses_the_compiled_loop_without_numba(compiled, tmp_path):
    wh = tmp_path / "wh"
    run_cli("ingest", str(trace_path("KTH-SP2-1996-2.1-cln.swf.gz")), warehouse=wh, check=True)
    run_cli("simulate", "KTH-SP2-1996-2.1-cln", warehouse=wh, check=True)  # stores the estimates (Numba's)
    code = ("import json, sys\nfrom pipeline.cli import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('numba', 'llvmlite', 'polars'))),"
            " file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code, "simulate", "KTH-SP2-1996-2.1-cln", "--json", "--force",
                          "--warehouse", str(wh)], capture_output=True, text=True,
                         env={**os.environ, "WALLTIME_PROGRESS": "0"})
    doc = json.loads(out.stdout)
    assert doc["counts"]["jobs_simulated"] == 28475
    assert json.loads(out.stderr.strip().splitlines()[-1]) == []
    jit = run_cli("simulate", "KTH-SP2-1996-2.1-cln", "--json", "--force", warehouse=wh,
                  env={"WALLTIME_AOT": "0"})
    assert json.loads(jit.stdout)["metrics"] == doc["metrics"] and json.loads(jit.stdout)["run_id"] == doc["run_id"]


def test_without_a_c_compiler_the_jit_runs_and_the_user_is_told(tmp_path):
    """CC naming a missing compiler: the build fails fast (before compiling the
    loop), says so once with the way to retry, records the failure so no later
    run (nor a background build) pays for it again, and simulations use the JIT."""
    code = f"""
import json, sys
from pathlib import Path
import numpy as np
from pipeline.simulate import aot
aot.directory = lambda: Path({str(tmp_path)!r})
notes = []
first = aot.ensure(note=notes.append)
again = aot.ensure(note=notes.append)
background = aot.start_background()
import pipeline.simulate as sim
from pipeline.simulate import kernel
sim.warm_up()
fn = sim._loop()
a = np.array([0, 5], np.int64); one = np.ones(2, np.int64)
start = fn(a, a, one * 10, one, one * 10, one * 10, one * 10, 1, 0, 1, 0, False)[0]
print(json.dumps({{"first": first is None, "again": again is None, "background": background, "notes": notes,
                  "jit": fn is kernel.simulate, "start": start.tolist(), "built": aot.module_path().exists(),
                  "failed": aot._failed().read_text()}}))
"""
    env = {**os.environ, "CC": str(tmp_path / "no-such-cc"), "WALLTIME_PROGRESS": "0"}
    env.pop("NUMBA_CACHE_DIR", None)  # the JIT's usual cache; only the module's directory is fresh
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    doc = json.loads(out.stdout.strip().splitlines()[-1])
    assert doc["first"] and doc["again"] and doc["background"] is None and not doc["built"]
    assert doc["jit"] and doc["start"] == [0, 10]
    assert "no working C compiler" in doc["failed"] and "no-such-cc" in doc["failed"]
    (told,) = doc["notes"]  # once: the second call reads the recorded failure silently
    assert "using Numba's JIT instead" in told and "no working C compiler" in told and "to try again" in told


@pytest.mark.parametrize("planted", ["lock", "log"])
def test_a_link_planted_as_the_lock_or_log_is_not_followed(tmp_path, monkeypatch, planted):
    """The builder's lock and log are opened O_NOFOLLOW: a link in the build
    directory creates nothing at its target, and no build starts through it."""
    monkeypatch.setattr(aot, "directory", lambda: tmp_path)
    target = aot._target()
    victim = tmp_path / "elsewhere" / "victim"
    victim.parent.mkdir()
    (tmp_path / f"{target.module_name()}.{planted}").symlink_to(victim)
    monkeypatch.setattr(target, "module_path", lambda name=None: tmp_path / "absent.so")
    if planted == "lock":
        assert target.building() is False
    assert target.start_background() is None
    assert not victim.exists()
