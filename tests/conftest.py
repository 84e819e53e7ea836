"""Cross-package integration fixtures: a per-session model cache (no root test reads the real data)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh LEAKRES_CACHE_DIR: the run converts the GGUF itself, as on a new machine."""
    cache = tmp_path_factory.mktemp("leakres-cache")
    os.environ["LEAKRES_CACHE_DIR"] = str(cache)
    return cache
