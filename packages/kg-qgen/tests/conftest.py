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


def require_real_data(path: Path, what: str) -> Path:
    """``path`` when the real public data is there; otherwise skip, by name, outside CI.

    Under ``CI=true`` the data must be present (CI stages it), so absence fails instead of skipping.
    """
    if path.exists():
        return path
    reason = f"not run: data absent ({what} not found at {path}; set LEAKRES_DATA_DIR)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason}; CI=true requires the real data")
    pytest.skip(reason)


@pytest.fixture
def mini_kb() -> KnowledgeGraph:
    return load_kb_json(FIXTURES / "mini_kb.json", source="mini")


@pytest.fixture(scope="session")
def mquake_hard_dev() -> Path:
    return require_real_data(data_dir() / "mquake" / "MQuAKE-hard-dev.json", "MQuAKE-hard dev")


@pytest.fixture(scope="session")
def wikidata_relations() -> Path:
    return require_real_data(
        data_dir() / "wikidata_relations" / "relation.json", "Wikidata relation labels"
    )
