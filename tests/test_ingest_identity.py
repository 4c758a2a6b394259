"""Issue 25, item 4: a trace is its bytes and the options that change what is
stored from them (traces.ingest_options). The same file with --size nodes
under a new --name is a second trace, not "unchanged"; under the same name
it is refused, naming what differs, unless --replace."""

from __future__ import annotations

import json
import shutil

from ingest_support import run_inproc, snapshot
from sacct_dumps import CONF, LIVE_SHORT, jobs_of, trace_row
from pipeline.warehouse import Warehouse


def ingest(tmp_path, *args):
    return run_inproc("ingest", "--format", "sacct", "--tz", "UTC", "d.txt", *args, warehouse=tmp_path / "wh",
                      cwd=tmp_path)


def test_other_options_under_a_new_name_make_a_new_trace(tmp_path):
    shutil.copy(LIVE_SHORT, tmp_path / "d.txt")
    ingest(tmp_path, "--name", "cpus").check_returncode()
    proc = ingest(tmp_path, "--size", "nodes", "--name", "nodes")
    assert proc.returncode == 0 and proc.stdout.startswith("d.txt: loaded as trace 'nodes': 11 jobs"), proc.stdout
    wh = Warehouse(tmp_path / "wh")
    assert trace_row(wh, "nodes")["size_unit"] == "nodes" and trace_row(wh, "cpus")["size_unit"] == "cpus"
    assert json.loads(trace_row(wh, "nodes")["ingest_options"])["size"] == "nodes"
    assert len(jobs_of(wh, "cpus")) == len(jobs_of(wh, "nodes")) == 11


def test_same_options_again_are_unchanged_and_a_new_name_is_a_new_trace(tmp_path):
    shutil.copy(LIVE_SHORT, tmp_path / "d.txt")
    ingest(tmp_path, "--slurm-conf", str(CONF)).check_returncode()
    before = snapshot(tmp_path / "wh")
    for args in ([], ["--replace"], ["--name", "d"]):
        proc = ingest(tmp_path, "--slurm-conf", str(CONF), *args)
        assert proc.stdout == "d.txt: unchanged: same content as trace 'd' already in the warehouse; nothing to do\n"
    assert snapshot(tmp_path / "wh") == before
    proc = ingest(tmp_path, "--slurm-conf", str(CONF), "--name", "again")
    assert proc.stdout.startswith("d.txt: loaded as trace 'again'"), proc.stdout


def test_other_options_under_the_same_name_are_refused_unless_replace(tmp_path):
    shutil.copy(LIVE_SHORT, tmp_path / "d.txt")
    ingest(tmp_path).check_returncode()
    before = snapshot(tmp_path / "wh")
    proc = ingest(tmp_path, "--size", "nodes")
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == ('error: d.txt: trace "d" is already in the warehouse with other options (size: cpus -> '
                           'nodes); use --replace to overwrite it, or --name to load it under another name\n')
    assert snapshot(tmp_path / "wh") == before
    conf = tmp_path / "other.conf"  # slurm.conf counts by content: an edited copy is another option
    conf.write_text(CONF.read_text().replace("MaxTime=UNLIMITED", "MaxTime=730-00:00:00"))
    ingest(tmp_path, "--slurm-conf", str(CONF), "--replace").check_returncode()
    proc = ingest(tmp_path, "--slurm-conf", str(conf))
    assert proc.returncode == 1 and "other options (slurm_conf: " in proc.stderr
    proc = ingest(tmp_path, "--slurm-conf", str(conf), "--replace")
    assert proc.stdout.startswith("d.txt: replaced as trace 'd'"), proc.stdout
    assert jobs_of(Warehouse(tmp_path / "wh"), "d")["15"]["req"] == 31_536_000  # a real year there now
