"""Model helpers: locating decoder layers, parameter selection, unwrapping."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from torch import nn

from unlearn_zoo.errors import UnlearnError


def decoder_layers(model: nn.Module) -> nn.ModuleList:
    """The ModuleList of transformer blocks (length ``config.num_hidden_layers``)."""
    n = getattr(getattr(model, "config", None), "num_hidden_layers", None)
    for _name, module in model.named_modules():
        if isinstance(module, nn.ModuleList) and (n is None or len(module) == n):
            return module
    raise UnlearnError("could not find the decoder layers (a ModuleList of num_hidden_layers)")


def layer_prefix(model: nn.Module) -> str:
    """Parameter-name prefix of the decoder layers, e.g. ``model.layers``."""
    layers = decoder_layers(model)
    for name, module in model.named_modules():
        if module is layers:
            return name
    raise UnlearnError("decoder layers not found in named_modules")


def set_trainable(model: nn.Module, patterns: Iterable[str]) -> list[str]:
    """Freeze everything except parameters whose name matches one of the regexes; return names."""
    regexes = [re.compile(p) for p in patterns]
    names = []
    for name, p in model.named_parameters():
        keep = any(r.search(name) for r in regexes)
        p.requires_grad_(keep)
        if keep:
            names.append(name)
    if not names:
        raise UnlearnError(f"no parameter matches {list(patterns)!r}")
    return names


def count_params(model: nn.Module, trainable_only: bool = False) -> int:
    return sum(p.numel() for p in model.parameters() if p.requires_grad or not trainable_only)


def unwrap(model: Any) -> nn.Module:
    """Strip DDP/accelerate wrappers."""
    while hasattr(model, "module") and isinstance(model.module, nn.Module):
        model = model.module
    return model


def add_lora(work: nn.Module, cfg: Any, targets: Iterable[str]) -> nn.Module:
    """``work`` wrapped with peft LoRA adapters on ``targets`` (``cfg``: the method's config)."""
    from peft import LoraConfig, get_peft_model

    lora = LoraConfig(
        r=cfg.lora_r,
        lora_alpha=cfg.lora_alpha,
        lora_dropout=cfg.lora_dropout,
        target_modules=list(targets),
        bias="none",
        task_type="CAUSAL_LM",
    )
    base_name = getattr(work.config, "_name_or_path", None) or None
    work = get_peft_model(work, lora)
    # peft reads the base path from model.__dict__, which transformers 5 no longer fills:
    # record it so the saved adapter can find its base model.
    for peft_cfg in work.peft_config.values():
        peft_cfg.base_model_name_or_path = peft_cfg.base_model_name_or_path or base_name
    return work
