"""Run a kg-qgen benchmark worker on this checkout and on an older git revision, side by side.

``run_side_by_side(script, args, ref, repeats)`` extracts ``packages/kg-qgen/src`` of ``ref``
(``git archive``) into a temporary folder, then runs ``script --worker ...`` alternately with the
current code and with the old code first on ``PYTHONPATH`` (same interpreter, same machine, same
moment), ``repeats`` times each, and returns both lists of the JSON dicts the worker prints.
Alternating the two keeps a loaded machine from favouring one side.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def extract_src(ref: str, dest: Path) -> Path:
    """``packages/kg-qgen/src`` of git revision ``ref``, unpacked under ``dest``."""
    blob = subprocess.run(
        ["git", "-C", str(REPO), "archive", "--format=tar", ref, "packages/kg-qgen/src"],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(blob)) as tar:
        tar.extractall(dest, filter="data")
    return dest / "packages" / "kg-qgen" / "src"


def _worker(script: Path, args: list[str], pythonpath: str | None) -> dict:
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run(
        [sys.executable, str(script), "--worker", *args],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def run_side_by_side(
    script: Path, args: list[str], ref: str, repeats: int
) -> tuple[list[dict], list[dict]]:
    with tempfile.TemporaryDirectory(prefix="kgqgen-baseline-") as tmp:
        old_src = extract_src(ref, Path(tmp))
        base, new = [], []
        for _ in range(repeats):
            base.append(_worker(script, args, str(old_src)))
            new.append(_worker(script, args, None))
    return base, new


def median(xs: list[float]) -> float:
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
