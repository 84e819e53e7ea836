"""Automatic batch size: how many sequences fit in the memory that is free right now."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

# Beyond this many rows a CPU step is compute-bound already and bigger batches only add
# latency and memory (measured with benchmarks/engine_speed.py on a 2-core machine).
CPU_MAX_ROWS = 128
GPU_MAX_ROWS = 1024


def available_bytes(device: torch.device) -> int:
    """Free accelerator memory, or the host's ``MemAvailable`` for CPU."""
    if device.type == "cuda":
        free, _total = torch.cuda.mem_get_info(device)
        return int(free)
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:  # pragma: no cover - not Linux
        pass
    return 4 << 30  # unknown: assume 4 GiB


@dataclass(frozen=True)
class RowCost:
    """Bytes one sequence needs: its KV cache over the whole budget, and the decode-step logits
    plus the sampling copies made from them (softmax, cumsum, sort: about four vocab rows)."""

    kv_bytes: int
    logits_bytes: int

    @property
    def total(self) -> int:
        return self.kv_bytes + self.logits_bytes


def row_cost(model_config: Any, max_tokens: int, dtype: torch.dtype) -> RowCost:
    cfg = getattr(model_config, "get_text_config", lambda: model_config)()
    layers = int(getattr(cfg, "num_hidden_layers", 32))
    heads = int(getattr(cfg, "num_attention_heads", 32))
    kv_heads = int(getattr(cfg, "num_key_value_heads", None) or heads)
    head_dim = int(getattr(cfg, "head_dim", None) or cfg.hidden_size // heads)
    vocab = int(getattr(cfg, "vocab_size", 32000))
    element = torch.finfo(dtype).bits // 8 if dtype.is_floating_point else 4
    kv = 2 * layers * kv_heads * head_dim * max_tokens * element
    return RowCost(kv_bytes=kv, logits_bytes=4 * vocab * 4)


def auto_max_rows(
    model_config: Any,
    device: torch.device,
    max_tokens: int,
    dtype: torch.dtype,
    *,
    memory_fraction: float = 0.5,
) -> int:
    """Concurrent sequences that fit in ``memory_fraction`` of the free memory, capped at
    :data:`CPU_MAX_ROWS` / :data:`GPU_MAX_ROWS`. Activation memory of prefill is bounded
    separately by the engine's ``max_prefill_tokens``."""
    budget = int(available_bytes(device) * memory_fraction)
    fits = max(1, budget // max(1, row_cost(model_config, max_tokens, dtype).total))
    cap = GPU_MAX_ROWS if device.type == "cuda" else CPU_MAX_ROWS
    return int(min(fits, cap))
