"""Shared fixtures of the leakres-cli tests: where the real data lives (skipped by name when absent)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def data_dir() -> Path:
    env = os.environ.get("LEAKRES_DATA_DIR")
    return Path(env) if env else Path(__file__).resolve().parents[3] / ".." / "shared" / "data"


def require_real_data(path: Path, what: str) -> Path:
    """``path`` when the real public data is there; otherwise skip, by name, outside CI."""
    if path.exists():
        return path
    reason = f"not run: data absent ({what} not found at {path}; set LEAKRES_DATA_DIR)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason}; CI=true requires the real data")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def real_data_dir() -> Path:
    """The data root holding BIG-Bench-Hard as leak-metrics reads it (``bbh/bbh/<task>.json``)."""
    root = data_dir()
    require_real_data(root / "bbh" / "bbh" / "boolean_expressions.json", "BIG-Bench-Hard")
    return root
