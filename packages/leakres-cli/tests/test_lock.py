"""One run per output directory: an OS lock (fcntl.flock) held for the whole run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from leakres_cli.errors import LeakresError
from leakres_cli.main import cli
from leakres_cli.scale.lock import LOCK_NAME, RunLock

# A separate process holds the lock, as a second `leakres run` would (flock is per open file).
HOLDER = """
import sys, time
from pathlib import Path
from leakres_cli.scale.lock import RunLock
RunLock(Path(sys.argv[1])).acquire()
print("locked", flush=True)
time.sleep(600)
"""


@pytest.fixture()
def held(tmp_path: Path):
    out = tmp_path / "run"
    out.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(out)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    yield out, proc
    proc.kill()
    proc.wait()


def test_second_run_on_the_same_out_says_who_holds_it(held) -> None:
    out, proc = held
    result = CliRunner().invoke(cli, ["run", "--out", str(out)], catch_exceptions=False)
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "in use by another leakres run" in lines[0]
    assert f"pid {proc.pid} on host " in lines[0] and " since 20" in lines[0]
    holder = json.loads((out / LOCK_NAME).read_text())
    assert holder["pid"] == proc.pid and holder["host"] and holder["started"]


def test_fresh_does_not_delete_cells_under_a_running_run(held) -> None:
    out, _ = held
    cell = out / "cells" / "base.json"
    cell.parent.mkdir()
    cell.write_text('{"config_fingerprint": "x", "payload": {}}')
    result = CliRunner().invoke(cli, ["run", "--fresh", "--out", str(out)], catch_exceptions=False)
    assert result.exit_code == 2
    assert cell.read_text() == '{"config_fingerprint": "x", "payload": {}}'


def test_a_killed_holder_releases_the_lock(held) -> None:
    out, proc = held
    with pytest.raises(LeakresError, match="in use by another leakres run"):
        RunLock(out).acquire()
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    with RunLock(out) as lock:  # the kernel dropped the dead process's lock: no stale lock file
        assert json.loads(lock.path.read_text())["pid"] == os.getpid()
    assert lock.path.read_text() == ""  # released: no holder recorded


def test_lock_is_exclusive_within_one_process_too(tmp_path: Path) -> None:
    with RunLock(tmp_path), pytest.raises(LeakresError, match=f"pid {os.getpid()}"):
        RunLock(tmp_path).acquire()
    RunLock(tmp_path).acquire()  # free again after the with block
