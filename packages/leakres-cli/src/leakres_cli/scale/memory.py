"""Training memory of one unlearning cell, stated term by term (`leakres plan`).

Two ways a cell trains, with different bytes per parameter:

* **One device** (``leakres run --cell`` as the SLURM array runs it): unlearn-zoo's Trainer runs with
  ``bf16=False`` and ``optim="adamw_torch"`` on the model in its loaded dtype, so weights, gradients
  and both Adam moments are in that dtype: 4 x 2 = 8 bytes per trained parameter in bf16, 16 in
  float32 (accelerate's ``estimate-memory`` float32 row, whose terms are model, gradients and two
  optimizer states in one dtype).
* **Sharded** (the shipped accelerate configs, ``mixed_precision: bf16``): accelerate upcasts the
  trained weights to fp32 master weights and keeps fp32 Adam states; gradients exist in fp32 and in
  the bf16 compute copy: 4 + 4 + 2 + 8 = 18 bytes per parameter, the sum of accelerate's
  ``estimate_training_usage(..., "bfloat16")`` terms (model 4, gradients 6, optimizer 8) and
  DeepSpeed's ZeRO-3 estimate (``4 x largest layer + 18 x params / GPUs``), divided over the GPUs.

On top: frozen reference models (a copy of the weights in their dtype), activations of one
micro-batch at the method's batch size and sequence length (Korthikanti et al. 2022: ``s b h (34 +
5 a s / h)`` bytes per layer in 16-bit without recomputation, ``2 s b h`` per layer plus one
layer's full set with activation checkpointing) and the logits (``b s V`` in the dtype plus the
fp32 copy the loss takes).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

#: Bytes per trained parameter when training on one device in the weights' own dtype.
SINGLE_DEVICE_STATES = 4  # weights, gradients, Adam m and v: 4 x the dtype's bytes
#: Bytes per trained parameter under accelerate's bf16 mixed precision (fp32 master + Adam).
MIXED_PRECISION_BYTES = 18  # fp32 master 4 + fp32 grads 4 + bf16 grads 2 + Adam m, v 8


@dataclass(frozen=True)
class TrainingShape:
    """What sizes one training step: the model's architecture and the method's batch."""

    n_params: int
    n_trainable: int
    hidden: int
    layers: int
    heads: int
    vocab: int
    intermediate: int
    weight_bytes: float  # bytes per parameter of the loaded dtype
    batch_size: int
    seq_len: int
    checkpointing: bool
    reference_copies: int  # frozen copies of the weights next to the trained model


@dataclass(frozen=True)
class TrainingMemory:
    """GB of each term; ``total_gb`` is per GPU for ``gpus`` GPUs."""

    mode: str  # "one device, <dtype> weights/grads/Adam" or "sharded, bf16 mixed precision"
    weights_gb: float
    gradients_gb: float
    optimizer_gb: float
    reference_gb: float
    activations_gb: float
    gather_gb: float  # the largest layer gathered whole (sharded only)
    gpus: int
    total_gb: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def activation_bytes(s: TrainingShape) -> float:
    """Activations of one micro-batch (16-bit rule scaled to the dtype) plus the logits."""
    per_layer_full = s.seq_len * s.batch_size * s.hidden * (34 + 5 * s.heads * s.seq_len / s.hidden)
    scale = s.weight_bytes / 2  # the rule counts 16-bit activations
    if s.checkpointing:
        acts = (2 * s.seq_len * s.batch_size * s.hidden * s.layers + per_layer_full) * scale
    else:
        acts = per_layer_full * s.layers * scale
    logits = s.batch_size * s.seq_len * s.vocab * (s.weight_bytes + 4)
    return acts + logits


def largest_layer(s: TrainingShape) -> int:
    """Parameters of the largest single tensor gathered whole (embedding or an MLP matrix)."""
    return max(s.vocab * s.hidden, s.hidden * s.intermediate)


def one_device(s: TrainingShape) -> TrainingMemory:
    """Memory of the cell trained on one device, as unlearn-zoo runs it (no mixed precision)."""
    wb = s.weight_bytes
    weights = s.n_params * wb
    grads = s.n_trainable * wb
    optimizer = 2 * s.n_trainable * wb
    reference = s.reference_copies * s.n_params * wb
    acts = activation_bytes(s)
    total = weights + grads + optimizer + reference + acts
    return TrainingMemory(
        f"one device, weights/grads/Adam in the {wb:g}-byte dtype", *_gb(weights, grads, optimizer),
        _g(reference), _g(acts), 0.0, 1, _g(total),
    )  # fmt: skip


def sharded(s: TrainingShape, gpus: int) -> TrainingMemory:
    """Per-GPU memory under the shipped accelerate configs (bf16 mixed precision, sharded states)."""
    frozen = (s.n_params - s.n_trainable) * s.weight_bytes  # LoRA: the frozen base, sharded too
    weights = (4 * s.n_trainable + frozen) / gpus
    grads = 6 * s.n_trainable / gpus
    optimizer = 8 * s.n_trainable / gpus
    reference = s.reference_copies * s.n_params * s.weight_bytes / gpus
    acts = activation_bytes(s)
    gather = 4 * largest_layer(s)
    total = weights + grads + optimizer + reference + acts + gather
    return TrainingMemory(
        "sharded, bf16 mixed precision (fp32 master + Adam)", *_gb(weights, grads, optimizer),
        _g(reference), _g(acts), _g(gather), gpus, _g(total),
    )  # fmt: skip


def plan_training(s: TrainingShape, usable_gb: float, max_gpus: int = 64) -> TrainingMemory:
    """One device when it fits; otherwise the fewest GPUs whose sharded share fits (or ``max_gpus``)."""
    single = one_device(s)
    if single.total_gb <= usable_gb:
        return single
    fixed = _g(activation_bytes(s) + 4 * largest_layer(s))
    states = sharded(s, 1).total_gb - fixed
    gpus = (
        max(2, math.ceil(states / max(usable_gb - fixed, 1e-9))) if usable_gb > fixed else max_gpus
    )
    return sharded(s, min(gpus, max_gpus))


def _g(x: float) -> float:
    return round(x / 1e9, 2)


def _gb(*xs: float) -> tuple[float, ...]:
    return tuple(_g(x) for x in xs)
