"""Load a model from a hub id, a ``save_pretrained`` directory or an unlearned checkpoint.

An unlearned checkpoint (ARCHITECTURE.md section 8, written by unlearn-zoo) is loaded by the same
rules as ``unlearn_zoo.load_unlearned``, implemented here because the libraries never import each
other (the file names are :mod:`recover_attacks.checkpoint_files`, a copy of unlearn-zoo's):

1. ``adapter_config.json`` present: a LoRA adapter left unmerged. Load its base model (the
   ``base_model`` argument, else ``base_model_name_or_path`` in that file) and attach the adapter
   with ``peft.PeftModel.from_pretrained``.
2. otherwise ``AutoModelForCausalLM.from_pretrained(dir)`` on the safetensors weights.
3. ``attention_shift_adapter.safetensors`` present: switch to eager attention and re-attach the
   Attention-Shifting adapters (:func:`attach_attention_shift_adapters`); a plain reload would
   silently give back the original model.

Weights load from safetensors only (``use_safetensors=True``); remote code is never trusted.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch
from torch import nn

from .checkpoint_files import AS_ADAPTER_FILE, PEFT_ADAPTER_CONFIG
from .errors import ModelLoadError


def load_model(
    path_or_id: str | Path,
    *,
    dtype: torch.dtype = torch.float32,
    base_model: str | Path | None = None,
    **kwargs: Any,
) -> Any:
    """Load a causal LM (rules above) with a clear error naming the path when it is not a model.

    ``base_model`` overrides the base of an unmerged LoRA checkpoint; ``kwargs`` go to every
    ``from_pretrained`` (e.g. ``quantization_config``, ``device_map``)."""
    from transformers import AutoModelForCausalLM

    path = Path(path_or_id)
    is_dir = path.is_dir()
    has_adapter = is_dir and (path / PEFT_ADAPTER_CONFIG).is_file()
    if path.exists() and not (is_dir and ((path / "config.json").is_file() or has_adapter)):
        raise ModelLoadError(
            f"model path '{path}' is not a model: expected a directory with config.json and "
            "safetensors weights (saved with save_pretrained), or an unlearned checkpoint with "
            f"{PEFT_ADAPTER_CONFIG}"
        )
    kwargs = {"use_safetensors": True, **kwargs, "dtype": dtype}
    try:
        if has_adapter:
            model = _load_lora_checkpoint(path, base_model, kwargs)
        else:
            model = AutoModelForCausalLM.from_pretrained(str(path_or_id), **kwargs)
    except (OSError, ValueError) as exc:
        raise ModelLoadError(
            f"could not load a causal LM from '{path_or_id}': {exc}".rstrip()
        ) from exc
    if is_dir and (path / AS_ADAPTER_FILE).is_file():
        attach_attention_shift_adapters(model, path / AS_ADAPTER_FILE)
    return model


def load_unlearned(
    output_dir: str | Path, base_model: str | Path | None = None, **kwargs: Any
) -> Any:
    """An unlearned checkpoint directory (the name unlearn-zoo uses for the same loader)."""
    return load_model(output_dir, base_model=base_model, **kwargs)


def _load_lora_checkpoint(path: Path, base_model: str | Path | None, kwargs: dict[str, Any]) -> Any:
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    config_file = path / PEFT_ADAPTER_CONFIG
    try:
        recorded = json.loads(config_file.read_text()).get("base_model_name_or_path")
    except json.JSONDecodeError as exc:
        raise ModelLoadError(f"{config_file}: not valid JSON ({exc})") from exc
    base = base_model or recorded
    if not base:
        raise ModelLoadError(
            f"{config_file}: field 'base_model_name_or_path' is empty; pass base_model=... "
            "(the model the adapter was trained on)"
        )
    model = AutoModelForCausalLM.from_pretrained(str(base), **kwargs)
    return PeftModel.from_pretrained(model, str(path))


class AttentionShiftAdapter(nn.Module):
    """``h + scale * up(relu(down(h)))`` on a self-attention output (unlearn-zoo's AS adapter;
    parameter names ``down.weight, down.bias, up.weight, up.bias, scale``)."""

    def __init__(self, hidden: int, dim: int) -> None:
        super().__init__()
        self.down = nn.Linear(hidden, dim)
        self.up = nn.Linear(dim, hidden)
        self.scale = nn.Parameter(torch.ones(()))

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        if self.down.weight.device != h.device or self.down.weight.dtype != h.dtype:
            # Kept outside the module tree (below), so model.to() does not move it: follow h.
            self.to(device=h.device, dtype=h.dtype)
        return h + self.scale * self.up(torch.relu(self.down(h)))


def _adapter_hook(module: nn.Module, _inputs: Any, output: Any) -> Any:
    adapter = module.as_adapter
    if isinstance(output, tuple):
        return (adapter(output[0]), *output[1:])
    return adapter(output)


def _decoder_layers(model: nn.Module) -> nn.ModuleList:
    n = getattr(getattr(model, "config", None), "num_hidden_layers", None)
    for _name, module in model.named_modules():
        if isinstance(module, nn.ModuleList) and (n is None or len(module) == n):
            return module
    raise ModelLoadError("could not find the decoder layers (a ModuleList of num_hidden_layers)")


def attach_attention_shift_adapters(model: nn.Module, adapter_file: str | Path) -> nn.Module:
    """Re-attach saved AS adapters to ``model`` in place (also after a quantized reload).

    ``adapter_file`` holds ``{layer}.down.weight`` ... ``{layer}.scale`` per adapted decoder
    layer. Each adapter runs as a forward hook on that layer's ``self_attn`` output and stays
    outside the module tree, so ``named_parameters`` and ``save_pretrained`` see the base model
    (as in unlearn-zoo). Attention switches to eager, the implementation AS was trained with."""
    from safetensors.torch import load_file

    adapter_file = Path(adapter_file)
    if adapter_file.is_dir():
        adapter_file = adapter_file / AS_ADAPTER_FILE
    state = load_file(str(adapter_file))
    try:
        layers = sorted({int(k.split(".")[0]) for k in state})
        dim = state[f"{layers[0]}.down.weight"].shape[0]
    except (ValueError, KeyError, IndexError) as exc:
        raise ModelLoadError(
            f"{adapter_file}: not an Attention-Shifting adapter file ({exc})"
        ) from exc
    if hasattr(model, "set_attn_implementation"):
        model.set_attn_implementation("eager")
    blocks = _decoder_layers(model)
    hidden = model.config.hidden_size
    for layer in layers:
        if not 0 <= layer < len(blocks):
            raise ModelLoadError(
                f"{adapter_file}: layer {layer} does not exist ({len(blocks)} layers)"
            )
        attn = blocks[layer].self_attn
        if "as_adapter" in vars(attn):
            raise ModelLoadError(
                f"layer {layer} already has an Attention-Shifting adapter attached"
            )
        ref = next(attn.parameters())
        adapter = AttentionShiftAdapter(hidden, dim)
        prefix = f"{layer}."
        adapter.load_state_dict(
            {k[len(prefix) :]: v for k, v in state.items() if k.startswith(prefix)}
        )
        dtype = ref.dtype if ref.dtype.is_floating_point else torch.float32
        adapter.to(device=ref.device, dtype=dtype).requires_grad_(False).eval()
        object.__setattr__(attn, "as_adapter", adapter)  # outside the module tree (see docstring)
        attn.register_forward_hook(_adapter_hook)
    return model


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
