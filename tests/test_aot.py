"""The loops compiled ahead of time (pipeline/simulate/aot.py) are the same loops:
job by job equal to the naive twin on generated workloads and to the JIT on a
real trace, and `walltime simulate` runs them without importing Numba. Both
exports: ``simulate`` and ``simulate_learn`` (ave2 learned in the replay,
``--history simulated``)."""

from __future__ import annotations

import inspect
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
from test_kernel_learn import _swf_jobs


def test_codes_agree_with_the_kernel():
    assert (aot.POLICIES, aot.BACKFILLS, aot.OVERRUNS) == (kernel.POLICIES, kernel.BACKFILLS, kernel.OVERRUNS)
    assert aot.EASY_SJBF == kernel.EASY_SJBF


@pytest.mark.slow  # the JIT call compiles the loop when Numba's cache is cold (30-45 s)
@pytest.mark.parametrize("name,signature", [("simulate", aot.SIGNATURE), ("simulate_learn", aot.SIGNATURE_LEARN)])
def test_signatures_agree_with_the_kernel(name, signature):
    """Each export's signature against its kernel function: one type per
    parameter, an int64 array where the kernel takes an array, a boolean for
    the ``predict`` switch, and as many outputs, of the same dtypes, as the JIT
    returns."""
    from numba.core import sigutils, types
    from numba.np import numpy_support

    assert name in aot.EXPORTS and [e[0] for e in aot._exports()] == list(aot.EXPORTS)
    args, ret = sigutils.normalize_signature(signature)
    params = list(inspect.signature(getattr(kernel, name).py_func).parameters)
    assert len(args) == len(params)
    scalars = {"capacity", "policy", "backfill", "overrun"}
    for p, t in zip(params, args):
        if p == "predict":
            assert t == types.boolean, p
        elif p in scalars:
            assert t == types.int64, p
        else:
            assert isinstance(t, types.Array) and t.dtype == types.int64 and t.layout == "C", p
    one = np.ones(1, np.int64)
    arrays = [one * 0 if p in ("submit", "user") else one for p in params if p not in scalars | {"predict"}]
    out = getattr(kernel, name)(*arrays, 1, 0, 1, 0, False)
    assert len(ret) == len(out)
    assert [r.dtype for r in ret] == [numpy_support.from_dtype(o.dtype) for o in out]


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
    fn = aot.ensure()  # builds once per source version (about 70 s of CPU), then loads
    if fn is None:
        pytest.skip("no C compiler: the loop cannot be compiled ahead of time here")
    return fn


@pytest.fixture(scope="module")
def compiled_learn(compiled):
    return aot.load("simulate_learn")


@pytest.fixture(scope="module")
def kth():
    """KTH-SP2 read from the archive's file: 28,475 jobs with a runtime and a
    size, 100 processors, the log's users made dense (0 .. 213) as the
    pipeline does (Inputs.user_index)."""
    w, user, cap = _swf_jobs("KTH-SP2-1996-2.1-cln.swf.gz", 10**9)
    w = {k: np.ascontiguousarray(v) for k, v in w.items()}
    return w, np.unique(user, return_inverse=True)[1].astype(np.int64), cap


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


LEARN_CASES = [(policy, backfill, overrun, predict)  # EASY and EASY++ (and none) x request and tsafrir
               for policy, backfill, overrun, predict in itertools.product(
                   ("fcfs", "wfp"), (0, 1, aot.EASY_SJBF), ("request", "tsafrir"), (False, True))
               if not (predict and backfill == aot.EASY_SJBF)]


def learn_args(w, user, cap, policy, backfill, overrun, predict, n=None):
    s = slice(0, n)
    return (w["submit"][s], w["job_id"][s], w["run"][s], w["nodes"][s], w["req"][s], user[s], cap,
            aot.POLICIES[policy], backfill, aot.OVERRUNS[overrun], predict)


@pytest.mark.slow
def test_compiled_learn_equals_the_jit_on_a_real_trace(compiled_learn, kth):
    """kernel.simulate_learn compiled ahead == the JIT on the whole of KTH-SP2,
    every output and the estimates the loop learned, job by job."""
    w, user, cap = kth
    for case in LEARN_CASES:
        args = learn_args(w, user, cap, *case)
        fast, jit = compiled_learn(*args), kernel.simulate_learn(*args)
        assert len(fast) == len(jit) == 6
        for a, b in zip(fast, jit):
            assert np.array_equal(a, b), case
        assert (fast[5] < w["req"]).mean() > 0.3, "learned in the replay: most estimates below the request"


@pytest.mark.slow
@pytest.mark.parametrize("overrun", ["request", "tsafrir"])
def test_compiled_learn_matches_the_naive_twin_on_a_trace_cut(compiled_learn, kth, overrun):
    """The first 2,000 jobs of KTH-SP2 (about two weeks), EASY++: the compiled
    loop against the pure-Python twin (naive_sim.simulate_learn)."""
    w, user, cap = kth
    args = learn_args(w, user, cap, "fcfs", aot.EASY_SJBF, overrun, False, n=2000)
    fast, slow = compiled_learn(*args), naive_sim.simulate_learn(*args)
    assert_same(fast[:5], slow[:5], overrun)
    assert np.array_equal(fast[5], slow[5]) and fast[1].any()


@pytest.mark.slow
def test_strided_inputs_are_read_as_they_are(compiled, compiled_learn, kth):
    """The compiled signatures take contiguous arrays, and numba.pycc's
    wrappers do not check the layout: every array handed in as a strided view
    (every other element of a doubled copy) must give the JIT's results on the
    contiguous arrays, not a read of the neighbouring memory."""
    w, user, cap = kth

    def strided(a):
        v = np.repeat(a, 2)[::2]
        assert not v.flags.c_contiguous and np.array_equal(v, a)
        return v

    plain = learn_args(w, user, cap, "fcfs", aot.EASY_SJBF, "tsafrir", False, n=5000)
    views = tuple(strided(a) if isinstance(a, np.ndarray) else a for a in plain)
    for a, b in zip(compiled_learn(*views), kernel.simulate_learn(*plain)):
        assert np.array_equal(a, b)
    w2 = {"submit": w["submit"][:5000], "job_id": w["job_id"][:5000], "run": w["run"][:5000],
          "nodes": w["nodes"][:5000], "req": w["req"][:5000], "est": w["req"][:5000]}
    args = kernel_args(w2, cap, 0, 1, predict=True)
    views = tuple(strided(a) if isinstance(a, np.ndarray) else a for a in args)
    for a, b in zip(compiled(*views), kernel.simulate(*args)):
        assert np.array_equal(a, b)


@pytest.mark.slow
def test_history_simulated_uses_the_compiled_loop_without_numba(compiled_learn, tmp_path):
    """`walltime simulate --estimate ave2 --history simulated` with the module
    built: no Numba in the process, and the same run (run_id, metrics, the
    stored estimates) as with the JIT (WALLTIME_AOT=0)."""
    wh = tmp_path / "wh"
    run_cli("ingest", str(trace_path("KTH-SP2-1996-2.1-cln.swf.gz")), warehouse=wh, check=True)
    cmd = ("simulate", "KTH-SP2-1996-2.1-cln", "--estimate", "ave2", "--history", "simulated", "--backfill-order",
           "sjbf", "--overrun", "tsafrir", "--json")
    run_cli(*cmd, warehouse=wh, check=True)  # stores the estimates (Polars)
    doc, mods = _cli_modules(wh, *cmd, "--force")
    assert doc["counts"]["jobs_simulated"] == 28475 and mods == []
    jit = json.loads(run_cli(*cmd, "--force", warehouse=wh, env={"WALLTIME_AOT": "0"}, check=True).stdout)
    assert jit["run_id"] == doc["run_id"] and jit["metrics"] == doc["metrics"]
    assert doc["metrics"]["backfilled"] > 0


def _cli_modules(wh, *argv) -> tuple[dict, list[str]]:
    """`walltime *argv --warehouse wh` in a fresh process: its JSON document and
    the Numba, llvmlite and Polars modules it imported."""
    code = ("import json, sys\nfrom pipeline.cli import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('numba', 'llvmlite', 'polars'))),"
            " file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code, *argv, "--warehouse", str(wh)], capture_output=True, text=True,
                         env={**os.environ, "WALLTIME_PROGRESS": "0"})
    return json.loads(out.stdout), json.loads(out.stderr.strip().splitlines()[-1])


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
