"""Fixed-shape slots for accelerators: a preallocated ``StaticCache`` and a decode step whose
tensor shapes never change, so it can be compiled (``torch.compile``, CUDA graphs).

Layout: ``slots`` rows x ``capacity`` columns per layer. All live rows write their next token at
the same column ``c`` (transformers' ``StaticLayer`` writes at one shared position), so rows of
different ages are right-aligned at ``c``: a prompt joining a free slot has its prefill keys
(computed with the dynamic path, shared prefix included) copied into columns ``[c - width, c)``
of its row, the rest of the row masked. A finished row is only masked out (its slot is reused by
the next prompt), so the step's shapes stay fixed; its compute is wasted, which is cheap on a GPU
and why this path is meant for accelerators. When ``c`` reaches ``capacity`` every row is shifted
left by the columns no live row sees (keys keep their rotary positions, so moving them is exact).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from transformers import StaticCache
from transformers.cache_utils import StaticLayer

from . import kv


class StaticSlots:
    """The static cache, the mask and the write column of the fixed-shape path."""

    def __init__(
        self,
        model: Any,
        slots: int,
        capacity: int,
        min_column: int,
        *,
        compile_step: bool,
    ) -> None:
        self.model = model
        self.slots = slots
        self.capacity = capacity
        # Every joining prompt needs `width` free columns left of the write column.
        self.min_column = min_column
        self.column = min_column
        self.shifts = 0  # how often the rows were shifted left (the cache was full)
        self.cache = StaticCache(config=model.config, max_cache_len=capacity)
        for i, layer in enumerate(self.cache.layers):
            if type(layer) is not StaticLayer:
                raise kv.UnsupportedCacheError(
                    f"static cache layer {i} is a {type(layer).__name__}"
                )
        self.device = next(model.parameters()).device
        self.mask = torch.zeros((slots, capacity), dtype=torch.bool, device=self.device)
        self._initialized = False
        self._step: Callable[..., torch.Tensor] = self._forward
        if compile_step:
            self._step = torch.compile(self._forward, mode="reduce-overhead", fullgraph=False)

    def _init_layers(self, like: list[tuple[torch.Tensor, torch.Tensor]]) -> None:
        for layer, (k, v) in zip(self.cache.layers, like, strict=True):
            shape_k = (self.slots, k.shape[1], 1, k.shape[3])
            shape_v = (self.slots, v.shape[1], 1, v.shape[3])
            layer.lazy_initialization(k.new_zeros(shape_k), v.new_zeros(shape_v))
        self._initialized = True

    def place(self, slot_rows: list[int], cache: Any, mask: torch.Tensor) -> None:
        """Copy the prefilled rows (a ``DynamicCache`` and its ``[rows, width]`` mask) into
        ``slot_rows``, right-aligned at the write column."""
        layers = kv.tensors(cache)
        if not self._initialized:
            self._init_layers(layers)
        width = mask.shape[1]
        if width > self.column:
            raise RuntimeError(
                f"prompt of {width} columns does not fit left of column {self.column}"
            )
        start = self.column - width
        index = torch.tensor(slot_rows, device=self.device)
        for layer, (k, v) in zip(self.cache.layers, layers, strict=True):
            layer.keys[index] = 0
            layer.values[index] = 0
            layer.keys[index, :, start : self.column] = k.to(layer.keys.dtype)
            layer.values[index, :, start : self.column] = v.to(layer.values.dtype)
        self.mask[index] = False
        self.mask[index, start : self.column] = mask.to(self.device)

    def free(self, slot_rows: list[int]) -> None:
        if slot_rows:
            self.mask[torch.tensor(slot_rows, device=self.device)] = False

    def _forward(
        self, input_ids: torch.Tensor, mask: torch.Tensor, positions: torch.Tensor
    ) -> torch.Tensor:
        out = self.model(
            input_ids=input_ids,
            attention_mask=mask,
            position_ids=positions,
            cache=self.cache,
            use_cache=True,
            logits_to_keep=1,
        )
        return out.logits[:, -1, :]

    def step(
        self, tokens: torch.Tensor, positions: torch.Tensor, live: torch.Tensor
    ) -> torch.Tensor:
        """One token for every slot (``tokens``/``positions``: ``[slots, 1]``; ``live``: bool
        ``[slots]``); returns ``[slots, vocab]`` logits."""
        if self.column >= self.capacity:
            self._compact(live)
        for layer in self.cache.layers:
            layer.cumulative_length.fill_(self.column)
        self.mask[:, self.column] = live
        logits = self._step(tokens, self.mask.long(), positions)
        self.column += 1
        return logits

    def _compact(self, live: torch.Tensor) -> None:
        """Shift every row left by the columns no live row attends to (keeping ``min_column``)."""
        seen = self.mask[live].any(dim=0) if bool(live.any()) else torch.zeros_like(self.mask[0])
        first = int(seen.nonzero()[0]) if bool(seen.any()) else self.column
        shift = min(first, self.column - self.min_column)
        if shift <= 0:
            raise RuntimeError(
                f"static cache of {self.capacity} columns is full (a live row spans all of it)"
            )
        keep = self.column - shift
        for layer in self.cache.layers:
            layer.keys[:, :, :keep] = layer.keys[:, :, shift : self.column].clone()
            layer.values[:, :, :keep] = layer.values[:, :, shift : self.column].clone()
        self.mask[:, :keep] = self.mask[:, shift : self.column].clone()
        self.mask[:, keep:] = False
        self.column = keep
        self.shifts += 1
