"""Load a model from a path / hub id with errors that name the path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from .errors import ModelLoadError


def load_model(path_or_id: str | Path, *, dtype: torch.dtype = torch.float32, **kwargs: Any) -> Any:
    """``AutoModelForCausalLM.from_pretrained`` with a clear error when the path is not a model."""
    from transformers import AutoModelForCausalLM

    path = Path(path_or_id)
    if path.exists() and not (path.is_dir() and (path / "config.json").is_file()):
        raise ModelLoadError(
            f"model path '{path}' is not a model: expected a directory with config.json and "
            "safetensors weights (saved with save_pretrained)"
        )
    try:
        return AutoModelForCausalLM.from_pretrained(str(path_or_id), dtype=dtype, **kwargs)
    except (OSError, ValueError) as exc:
        raise ModelLoadError(
            f"could not load a causal LM from '{path_or_id}': {exc}".rstrip()
        ) from exc


def load_tokenizer(path_or_id: str | Path) -> Any:
    from transformers import AutoTokenizer

    try:
        return AutoTokenizer.from_pretrained(str(path_or_id))
    except (OSError, ValueError) as exc:
        raise ModelLoadError(f"could not load a tokenizer from '{path_or_id}': {exc}") from exc


def resolve_model(model: Any, tokenizer: Any) -> tuple[Any, Any]:
    """Return (model, tokenizer); paths / hub ids are loaded, in-memory objects pass through."""
    if isinstance(model, (str, Path)):
        source = model
        model = load_model(source)
        if tokenizer is None:
            tokenizer = load_tokenizer(source)
    if tokenizer is None:
        raise ValueError("a tokenizer is required when the model is given as an object")
    if isinstance(tokenizer, (str, Path)):
        tokenizer = load_tokenizer(tokenizer)
    return model, tokenizer
