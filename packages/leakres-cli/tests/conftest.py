"""Shared fixtures of the leakres-cli tests: where the real data lives (the shipped slice when absent)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

TEST_DATA = Path(__file__).resolve().parent / "data"


def data_dir() -> Path:
    env = os.environ.get("LEAKRES_DATA_DIR")
    return Path(env) if env else Path(__file__).resolve().parents[3] / ".." / "shared" / "data"


def require_real_data(path: Path, what: str) -> Path:
    """``path`` when the real public data is there, else the small real slice shipped in tests/data at
    the same relative place (licence and source in its SOURCE.md), so a new clone runs every test.

    Under ``CI=true`` the full data must be present (CI stages it), so absence fails instead.
    """
    if path.exists():
        return path
    reason = f"data absent ({what} not found at {path}; set LEAKRES_DATA_DIR)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason}; CI=true requires the real data")
    relative = path.relative_to(data_dir())
    sliced = TEST_DATA / relative
    if not sliced.exists():
        pytest.fail(f"{reason}, and no slice at {sliced}")
    return sliced


def is_slice(path: Path) -> bool:
    """True when a test reads the shipped slice instead of the full file (sizes differ)."""
    return TEST_DATA in Path(path).parents


@pytest.fixture(scope="session")
def real_data_dir() -> Path:
    """The data root holding BIG-Bench-Hard as leak-metrics reads it (``bbh/bbh/<task>.json``)."""
    root = data_dir()
    found = require_real_data(root / "bbh" / "bbh" / "boolean_expressions.json", "BIG-Bench-Hard")
    return TEST_DATA if is_slice(found) else root
