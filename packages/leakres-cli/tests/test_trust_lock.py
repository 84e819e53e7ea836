"""Issue 39 item 6: `leakres run --cell` takes --out's run lock (shared), so a cell job never runs
beside a whole run on the same --out, while cell jobs still run side by side (a SLURM array)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from leakres_cli.errors import LeakresError
from leakres_cli.main import cli
from leakres_cli.scale import grid
from leakres_cli.scale.lock import RunLock, cell_lock_name
from test_lock import HOLDER


def test_a_cell_job_refuses_to_run_beside_a_whole_run(tmp_path: Path, monkeypatch) -> None:
    def ran(*args, **kwargs):
        raise AssertionError("the cell ran beside a whole run on the same --out")

    monkeypatch.setattr(grid, "run_cell", ran)
    out = tmp_path / "run"
    out.mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(out)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        result = CliRunner().invoke(
            cli, ["run", "--cell", "base", "--out", str(out), "--quiet"], catch_exceptions=False
        )
    finally:
        holder.kill()
        holder.wait()
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "in use by another leakres run" in lines[0], result.stderr
    assert f"pid {holder.pid}" in lines[0]


def test_cell_jobs_share_the_run_lock_and_exclude_a_whole_run(tmp_path: Path) -> None:
    with RunLock(tmp_path, shared=True), RunLock(tmp_path, shared=True):  # two cell jobs at once
        with (
            RunLock(tmp_path, cell_lock_name("ga")),
            RunLock(tmp_path, cell_lock_name("npo")),
            pytest.raises(LeakresError, match="run --cell"),
        ):
            RunLock(tmp_path).acquire()  # a whole run waits for them, and says why
        with pytest.raises(LeakresError, match="in use"):
            _same_cell(tmp_path)
    with RunLock(tmp_path), pytest.raises(LeakresError, match="in use by another leakres run"):
        RunLock(tmp_path, shared=True).acquire()  # and a cell job waits for a whole run
    RunLock(tmp_path).acquire()  # all free again


def _same_cell(out: Path) -> None:
    """The same cell twice: its own lock is exclusive."""
    with RunLock(out, cell_lock_name("ga")):
        RunLock(out, cell_lock_name("ga")).acquire()
