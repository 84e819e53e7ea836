"""Row and column surgery on a transformers ``DynamicCache`` (``[rows, kv_heads, columns, dim]``).

The engine keeps every running sequence as one row of a single cache. Columns are time steps;
a column may be a hole (padding, masked out by the engine's attention mask). Keys carry their
rotary position from when they were computed, so moving a key to another column does not change
attention: only the mask says which columns a row sees. That is what lets rows of different
lengths and ages share one cache, and rows leave and join between steps.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from transformers import DynamicCache
from transformers.cache_utils import DynamicLayer


class UnsupportedCacheError(RuntimeError):
    """The model's cache is not plain full-attention ``DynamicLayer``s (sliding windows, linear
    attention, encoder-decoder...); the engine then falls back to ``model.generate``."""


def new_cache(model_config: Any) -> DynamicCache:
    return DynamicCache(config=model_config)


def check_supported(cache: Any) -> None:
    if not isinstance(cache, DynamicCache):
        raise UnsupportedCacheError(f"cache type {type(cache).__name__} is not a DynamicCache")
    for i, layer in enumerate(cache.layers):
        if type(layer) is not DynamicLayer:
            raise UnsupportedCacheError(f"cache layer {i} is a {type(layer).__name__}")


def _layers(cache: DynamicCache) -> list[DynamicLayer]:
    return [layer for layer in cache.layers if layer.is_initialized]


def from_tensors(
    model_config: Any, kv: Sequence[tuple[torch.Tensor, torch.Tensor]]
) -> DynamicCache:
    """A cache whose layers hold exactly these key/value tensors (no copy)."""
    cache = new_cache(model_config)
    if len(cache.layers) != len(kv):
        raise UnsupportedCacheError(f"{len(kv)} cached layers for {len(cache.layers)} cache layers")
    for layer, (keys, values) in zip(cache.layers, kv, strict=True):
        layer.lazy_initialization(keys, values)
        layer.keys, layer.values = keys, values
    return cache


def tensors(cache: DynamicCache) -> list[tuple[torch.Tensor, torch.Tensor]]:
    return [(layer.keys, layer.values) for layer in cache.layers]


def expand_rows(model_config: Any, prefix: DynamicCache, rows: int) -> DynamicCache:
    """``rows`` copies of a one-row cache (views: the next update materialises them)."""
    kv = [(k.expand(rows, -1, -1, -1), v.expand(rows, -1, -1, -1)) for k, v in tensors(prefix)]
    return from_tensors(model_config, kv)


def select_rows(cache: DynamicCache, index: torch.Tensor) -> None:
    for layer in _layers(cache):
        layer.keys = layer.keys.index_select(0, index)
        layer.values = layer.values.index_select(0, index)


def repeat_rows(cache: DynamicCache, repeats: int) -> None:
    if repeats > 1:
        for layer in _layers(cache):
            layer.keys = layer.keys.repeat_interleave(repeats, dim=0)
            layer.values = layer.values.repeat_interleave(repeats, dim=0)


def select_columns(cache: DynamicCache, index: torch.Tensor) -> None:
    for layer in _layers(cache):
        layer.keys = layer.keys.index_select(2, index)
        layer.values = layer.values.index_select(2, index)


def _pad_left(t: torch.Tensor, columns: int) -> torch.Tensor:
    if columns == 0:
        return t
    shape = list(t.shape)
    shape[2] = columns
    return torch.cat([t.new_zeros(shape), t], dim=2)


def concat_rows(model_config: Any, a: DynamicCache, b: DynamicCache) -> DynamicCache:
    """Rows of ``a`` then rows of ``b``; the shorter one gets zero (masked) columns on the left."""
    ta, tb = tensors(a), tensors(b)
    width_a, width_b = ta[0][0].shape[2], tb[0][0].shape[2]
    width = max(width_a, width_b)
    kv = []
    for (ka, va), (kb, vb) in zip(ta, tb, strict=True):
        keys = torch.cat([_pad_left(ka, width - width_a), _pad_left(kb, width - width_b)], dim=0)
        values = torch.cat([_pad_left(va, width - width_a), _pad_left(vb, width - width_b)], dim=0)
        kv.append((keys, values))
    return from_tensors(model_config, kv)


def pad_mask_left(mask: torch.Tensor, width: int) -> torch.Tensor:
    missing = width - mask.shape[1]
    if missing <= 0:
        return mask
    return torch.cat([mask.new_zeros((mask.shape[0], missing)), mask], dim=1)
