"""`--backfill-order sjbf` and `--overrun tsafrir` through the stage (issue 26,
items 2 and 3): the canonical config (run ids of other runs unchanged), the
CLI's refusals, the stored run against the loop, plain_runs (migration 220)
and the study file's key. The loop itself: tests/test_kernel_easypp.py."""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import run_cli
from pipeline.generate import generate_file
from pipeline.simulate import kernel, make_config
from pipeline.simulate.config import SimConfig
from pipeline.study.config import load_study
from pipeline.errors import WalltimeError
from pipeline.warehouse import Warehouse

# the canonical form of the default options as it was before backfill_order existed:
# the run ids of every stored run depend on it
DEFAULT = ('{"adjust":"regular","backfill":"easy","capacity":64,"drop_oversized":false,"estimate":"request",'
           '"load_factor":1.0,"overrun":"request","policy":"fcfs","predict_wait":false,"split":null}')


def test_queue_order_keeps_the_canonical_form_and_sjbf_changes_it():
    assert make_config(capacity=64).canonical() == DEFAULT
    assert make_config(capacity=64, backfill_order="queue").canonical() == DEFAULT
    sjbf = make_config(capacity=64, backfill_order="sjbf", overrun="tsafrir").canonical()
    assert json.loads(sjbf) == {**json.loads(DEFAULT), "backfill_order": "sjbf", "overrun": "tsafrir"}
    for cfg in (make_config(capacity=64), make_config(capacity=64, backfill_order="sjbf")):
        assert SimConfig(**json.loads(cfg.canonical())) == cfg  # how a study's worker reads its task


@pytest.mark.parametrize("options,message", [
    (dict(backfill="none", backfill_order="sjbf"),
     "--backfill-order sjbf: orders the EASY backfill scan; use it with --backfill easy, not --backfill none"),
    (dict(backfill="conservative", backfill_order="sjbf"),
     "--backfill-order sjbf: orders the EASY backfill scan; use it with --backfill easy, not --backfill conservative"),
    (dict(backfill_order="lpt"), '--backfill-order "lpt": unknown; use one of queue, sjbf'),
    (dict(overrun="triple"), '--overrun "triple": unknown; use one of request, double, tsafrir'),
])
def test_refusals_name_the_option(options, message):
    with pytest.raises(WalltimeError) as e:
        make_config(capacity=64, **options)
    assert str(e.value) == message


def test_node_aware_refuses_sjbf():
    with pytest.raises(WalltimeError, match="^--backfill-order sjbf: .*not --backfill conservative$"):
        make_config(capacity=64, backfill="conservative", backfill_order="sjbf", nodes_aware=True)
    assert make_config(capacity=64, backfill="conservative", overrun="tsafrir", nodes_aware=True).overrun == "tsafrir"


@pytest.fixture(scope="module")
def wh(tmp_path_factory):
    d = tmp_path_factory.mktemp("easypp")
    generate_file(d / "g.swf", jobs=2000, seed=5, capacity=64, load=0.9)
    run_cli("ingest", str(d / "g.swf"), "--name", "g", warehouse=d / "wh", check=True)
    return d / "wh"


def test_cli_stores_an_easy_plus_plus_run_equal_to_the_loop(wh):
    plain = json.loads(run_cli("simulate", "g", "--json", warehouse=wh, check=True).stdout)
    proc = run_cli("simulate", "g", "--backfill-order", "sjbf", "--overrun", "tsafrir", "--json",
                   warehouse=wh, check=True)
    doc = json.loads(proc.stdout)
    assert doc["run_id"] != plain["run_id"]
    con = Warehouse(wh).reader()
    try:
        cfg, overrun = con.execute("SELECT config, overrun FROM runs WHERE run_id = ?", [doc["run_id"]]).fetchone()
        assert json.loads(cfg)["backfill_order"] == "sjbf" and overrun == "tsafrir"
        assert [r for (r,) in con.execute("SELECT run_id FROM plain_runs").fetchall()] == [plain["run_id"]]
        w = con.execute("SELECT submit, job_id, run, nodes, est_wait, est_run, req, start FROM sim_jobs "
                        "WHERE run_id = ? ORDER BY submit, job_id", [doc["run_id"]]).fetchnumpy()
    finally:
        con.close()
    a = {k: np.ascontiguousarray(v, dtype=np.int64) for k, v in w.items()}
    start = kernel.simulate(a["submit"], a["job_id"], a["run"], a["nodes"], a["est_wait"], a["est_run"], a["req"],
                            64, kernel.POLICIES["fcfs"], kernel.EASY_SJBF, kernel.OVERRUNS["tsafrir"], False)[0]
    assert (start == a["start"]).all()
    text = run_cli("simulate", "g", "--backfill-order", "sjbf", "--overrun", "tsafrir", warehouse=wh).stdout
    assert "(fcfs/easy++, estimate request" in text


def test_cli_refusal_is_one_line(wh):
    proc = run_cli("simulate", "g", "--backfill", "none", "--backfill-order", "sjbf", warehouse=wh)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == ("error: --backfill-order sjbf: orders the EASY backfill scan; use it with "
                           "--backfill easy, not --backfill none\n")


def test_help_names_the_options():
    text = " ".join(run_cli("simulate", "--help", env={"COLUMNS": "200"}, check=True).stdout.split())
    assert "--backfill-order" in text and "sjbf" in text and "tsafrir" in text


def test_study_grid_over_backfill_order(tmp_path):
    (tmp_path / "g.swf").write_text("")
    base = '[[traces]]\npath = "g.swf"\nname = "g"\n[[simulations]]\ncapacity = 64\n'
    f = tmp_path / "s.toml"
    f.write_text(base + 'backfill_order = ["queue", "sjbf"]\noverrun = "tsafrir"\n')
    sims = load_study(f).simulations
    assert [(s.config.backfill_order, s.config.overrun) for s in sims] == [("queue", "tsafrir"), ("sjbf", "tsafrir")]
    f.write_text(base + 'backfill = "none"\nbackfill_order = "sjbf"\n')
    with pytest.raises(WalltimeError, match=r": simulations\[0\]\.backfill_order: --backfill-order sjbf: "):
        load_study(f)
