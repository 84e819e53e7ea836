"""Load a model for stand-alone BBH scoring (a hub id, a directory or a GGUF file)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from leak_metrics._optional import require
from leak_metrics.errors import InputError


def load_model(
    path_or_id: str | os.PathLike[str], *, dtype: str = "float32", device: str = "cpu"
) -> tuple[Any, Any]:
    """Load ``(model, tokenizer)`` from a hub id, a local directory, a ``.gguf`` file, or a
    directory holding exactly one ``.gguf`` file and no ``config.json`` (dequantised to ``dtype``).

    Weights load with ``use_safetensors=True`` (a ``.bin`` pickle checkpoint is refused) and
    ``trust_remote_code=False``; a GGUF file is read by transformers' GGUF reader."""
    torch = require("torch", "local", "loading a model")
    transformers = require("transformers", "local", "loading a model")
    path = Path(path_or_id)
    kwargs: dict[str, Any] = {}
    target: str | Path = str(path_or_id)
    if path.suffix == ".gguf" and path.is_file():
        target, kwargs = path.parent, {"gguf_file": path.name}
    elif path.is_dir() and not (path / "config.json").exists():
        ggufs = sorted(path.glob("*.gguf"))
        if len(ggufs) == 1:
            target, kwargs = path, {"gguf_file": ggufs[0].name}
        elif len(ggufs) > 1:
            names = ", ".join(g.name for g in ggufs)
            raise InputError(f"{path}: several .gguf files ({names}); pass the file path")
    # Weights only from safetensors (or the GGUF file), never pickles; no code from the repo.
    tokenizer = transformers.AutoTokenizer.from_pretrained(
        target, trust_remote_code=False, **kwargs
    )
    model = transformers.AutoModelForCausalLM.from_pretrained(
        target,
        dtype=getattr(torch, dtype),
        use_safetensors=True,
        trust_remote_code=False,
        **kwargs,
    )
    model.to(device)
    model.eval()
    return model, tokenizer
