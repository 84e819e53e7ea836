"""Shared fixtures: the tiny hand-written KB and the location of the shared real data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from kg_qgen.graph import KnowledgeGraph
from kg_qgen.sources.builtin import load_kb_json

FIXTURES = Path(__file__).resolve().parent / "fixtures"

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


@pytest.fixture
def mini_kb() -> KnowledgeGraph:
    return load_kb_json(FIXTURES / "mini_kb.json", source="mini")


@pytest.fixture(scope="session")
def mquake_hard_dev() -> Path:
    return require_real_data(data_dir() / "mquake" / "MQuAKE-hard-dev.json", "MQuAKE-hard dev")


@pytest.fixture(scope="session")
def mquake_per_type(mquake_hard_dev: Path) -> int:
    """Questions per type the MQuAKE tests build: 100 from the full dev file, 12 from the slice (its
    48 cases yield 16 of every type)."""
    return 12 if is_slice(mquake_hard_dev) else 100


@pytest.fixture(scope="session")
def wikidata_relations() -> Path:
    return require_real_data(
        data_dir() / "wikidata_relations" / "relation.json", "Wikidata relation labels"
    )
