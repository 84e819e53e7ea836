"""Shared fixtures: the tiny hand-written KB and the location of the shared real data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from kg_qgen.graph import KnowledgeGraph
from kg_qgen.sources.builtin import load_kb_json

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def data_dir() -> Path:
    env = os.environ.get("LEAKRES_DATA_DIR")
    return Path(env) if env else Path(__file__).resolve().parents[3] / ".." / "shared" / "data"


@pytest.fixture
def mini_kb() -> KnowledgeGraph:
    return load_kb_json(FIXTURES / "mini_kb.json", source="mini")


@pytest.fixture(scope="session")
def mquake_hard_dev() -> Path:
    path = data_dir() / "mquake" / "MQuAKE-hard-dev.json"
    if not path.is_file():
        pytest.fail(f"shared MQuAKE data not found at {path}; set LEAKRES_DATA_DIR")
    return path
