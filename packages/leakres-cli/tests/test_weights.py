"""Cells keyed on the weights (issue 39, item 1): a model retrained in place at the same path is
rescored, not answered from the old cells; results record the hashes (leakres_cli.models.weights)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import torch
from leakres_cli.config.run_config import RunConfig
from leakres_cli.models.weights import CACHE_FILE, model_digest
from leakres_cli.scale.store import digest_key
from leakres_cli.stages.pipeline import Benchmark
from safetensors.torch import save_file


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "cache"
    monkeypatch.setenv("LEAKRES_CACHE_DIR", str(cache))
    return cache


def _save_tiny(path: Path, seed: int) -> None:
    """A tiny 'model' directory: config.json and one safetensors shard of seeded weights."""
    path.mkdir(parents=True, exist_ok=True)
    (path / "config.json").write_text(json.dumps({"model_type": "tiny"}))
    gen = torch.Generator().manual_seed(seed)
    save_file({"w": torch.randn(64, 64, generator=gen)}, str(path / "model.safetensors"))


def test_digest_changes_when_the_weights_are_overwritten(tmp_path: Path, _cache: Path) -> None:
    model = tmp_path / "model"
    _save_tiny(model, seed=0)
    first = model_digest(str(model))
    assert first["sha256"] and list(first["files"]) == ["model.safetensors"]
    assert json.loads((_cache / CACHE_FILE).read_text())  # the per-file hash is cached
    assert model_digest(str(model)) == first  # unchanged files: the same digest (from the cache)
    _save_tiny(model, seed=1)  # retrained in place: same path, same size, other bytes
    second = model_digest(str(model))
    assert second["sha256"] != first["sha256"]
    assert digest_key({"base": second}) != digest_key({"base": first})
    # the key is the bytes, not the path: a copy elsewhere keys the same
    _save_tiny(tmp_path / "copy", seed=1)
    assert digest_key({"base": model_digest(str(tmp_path / "copy"))}) == digest_key(
        {"base": second}
    )


def test_adapter_files_are_part_of_the_digest(tmp_path: Path) -> None:
    adapter = tmp_path / "adapter"
    adapter.mkdir()
    save_file({"lora_A": torch.zeros(2, 2)}, str(adapter / "adapter_model.safetensors"))
    (adapter / "adapter_config.json").write_text(json.dumps({"r": 8}))
    before = model_digest(str(adapter))
    assert sorted(before["files"]) == ["adapter_config.json", "adapter_model.safetensors"]
    (adapter / "adapter_config.json").write_text(json.dumps({"r": 16}))  # how it applies changed
    assert model_digest(str(adapter))["sha256"] != before["sha256"]


def test_a_model_retrained_in_place_is_rescored(tmp_path: Path) -> None:
    """The run's own cell store: a stored base cell is reused while the weights are unchanged and
    recomputed (not returned stale in 0.0 s) once the model at the same path is overwritten."""
    model = tmp_path / "model"
    _save_tiny(model, seed=0)
    out = tmp_path / "out"
    calls: list[int] = []

    def score() -> dict:
        calls.append(1)
        return {"n": len(calls)}

    cfg = RunConfig(model=str(model))
    assert Benchmark(cfg, out, progress=False).store.cached("base", score) == {"n": 1}
    bench = Benchmark(cfg, out, progress=False)
    assert bench.store.cached("base", score) == {"n": 1}  # same weights: the stored cell
    stored = json.loads((out / "cells" / "base.json").read_text())
    assert stored["weights"] == digest_key(bench.store.weights())
    assert bench.store.weights()["base"]["sha256"] == model_digest(str(model))["sha256"]
    _save_tiny(model, seed=1)
    assert Benchmark(cfg, out, progress=False).store.cached("base", score) == {"n": 2}
    assert len(calls) == 2


def test_unknown_hub_id_is_keyed_on_its_name() -> None:
    digest = model_digest("no-such-org/no-such-model")
    assert digest["sha256"] is None and "name only" in digest["note"]


def test_embedded_model_hash_is_cached(_cache: Path) -> None:
    """The embedded SmolLM2 is keyed on its GGUF file (98 MB): hashed once, then from the cache."""
    start = time.perf_counter()
    first = model_digest("smollm2-135m-instruct")
    uncached = time.perf_counter() - start
    start = time.perf_counter()
    assert model_digest("smollm2-135m-instruct") == first
    cached = time.perf_counter() - start
    assert list(first["files"]) == ["SmolLM2-135M-Instruct.Q4_1.gguf"]
    assert cached < uncached and cached < 0.1
