"""The records and small helpers of the in-process engine's decoding (:mod:`.local`): a decoding
row and a batch of rows over one KV cache, EOS ids, the prompts' common prefix, a model's device
and dtype."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch


@dataclass
class _Row:
    request: int
    sample: int
    next_position: int
    generator: torch.Generator | None
    tokens: list[int] = field(default_factory=list)


@dataclass
class _Batch:
    cache: Any
    mask: torch.Tensor  # [rows, columns] bool: which cache columns each row attends to
    rows: list[_Row]


def _eos_ids(model: Any, tokenizer: Any) -> set[int]:
    gen = getattr(model, "generation_config", None)
    eos = getattr(gen, "eos_token_id", None) if gen is not None else None
    if eos is None:
        eos = getattr(tokenizer, "eos_token_id", None)
    if eos is None:
        return set()
    return {int(e) for e in (eos if isinstance(eos, (list, tuple)) else [eos])}


def _common_prefix(sequences: Sequence[Sequence[int]]) -> int:
    first = sequences[0]
    n = min(len(s) for s in sequences)
    for s in sequences[1:]:
        i = 0
        while i < n and s[i] == first[i]:
            i += 1
        n = i
        if n == 0:
            break
    return n


def model_device(model: Any) -> torch.device:
    try:
        return next(model.parameters()).device
    except StopIteration:  # pragma: no cover - parameterless model
        return torch.device("cpu")


def model_dtype(model: Any) -> torch.dtype:
    for p in model.parameters():
        if p.dtype.is_floating_point:
            return p.dtype
    return torch.float32  # pragma: no cover
