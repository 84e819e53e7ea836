"""Cross-package integration fixtures: real data location and a per-session model cache."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def data_dir() -> Path:
    path = Path(os.environ.get("LEAKRES_DATA_DIR", REPO.parent / "shared" / "data"))
    if not (path / "mquake").is_dir():
        reason = f"not run: data absent (real data not found at {path}; set LEAKRES_DATA_DIR)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{reason}; CI=true requires the real data")
        pytest.skip(reason)
    return path


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh LEAKRES_CACHE_DIR: the run converts the GGUF itself, as on a new machine."""
    cache = tmp_path_factory.mktemp("leakres-cache")
    os.environ["LEAKRES_CACHE_DIR"] = str(cache)
    return cache
