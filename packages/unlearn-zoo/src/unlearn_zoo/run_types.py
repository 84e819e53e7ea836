"""The plain records of an unlearning run (what :class:`~unlearn_zoo.base.Unlearner`'s steps pass
each other and return), :class:`MethodNeeds`, and the library versions a run record holds."""

from __future__ import annotations

import platform
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from unlearn_zoo.data import EncodedExample


@dataclass(frozen=True)
class MethodNeeds:
    """What one configured method needs beside the model it trains (:meth:`Unlearner.needs`), for
    planners that size a run without training it.

    Attributes:
        reference_model: each step also runs theta_p forward (NPO, PALU, RMU through their
            reference; AS through its adapters off): about one more forward pass per step.
        retain_set: its steps see the retain set (``retain_weight > 0``; TV never).
        spans: its examples need entity ``spans`` (PALU, AS).
        frozen_copies: full frozen copies of the weights held beside the trained model (the
            memory multiplier of the weights is ``1 + frozen_copies``): NPO, PALU, RMU one without
            LoRA (with LoRA theta_p is the adapters off, no copy), TV one (kept for its
            arithmetic after training), SimNPO and AS none.
    """

    reference_model: bool
    retain_set: bool
    spans: bool
    frozen_copies: int


@dataclass
class UnlearnResult:
    """``model``: the unlearned in-memory model; ``record``: JSON-able run record."""

    model: nn.Module
    record: dict[str, Any]


@dataclass
class EncodedSets:
    """Output of :meth:`Unlearner.encode`: token ids, labels and span masks per example."""

    forget: list[EncodedExample]
    retain: list[EncodedExample]


@dataclass
class Wrapped:
    """Output of :meth:`Unlearner.wrap`: the private training copy and what the run needs of it."""

    model: nn.Module
    """Deep copy of the caller's model after :meth:`Unlearner.prepare` and LoRA (if any)."""
    original: nn.Module | None
    """Frozen theta_p for :meth:`Unlearner.post_train` when :meth:`Unlearner.needs_original`."""
    n_params: int
    n_trainable: int


@dataclass
class TrainOutcome:
    """Output of :meth:`Unlearner.train`: how far training went and why it stopped."""

    steps: int
    """Optimizer steps taken."""
    planned_steps: int
    """Optimizer steps that ``epochs`` asks for (before any ``max_steps`` cap)."""
    epochs_completed: float
    forget_examples_seen: int
    """Distinct forget examples that went into a checked loss (all ranks)."""
    cap_hit: bool
    """``max_steps`` stopped training before ``epochs`` were done."""
    stop_reason: str
    stop_message: str | None
    loss_curve: list[dict[str, float]]
    train_time_s: float
    step_times_s: list[float]
    """Wall time of each optimizer step (the first includes warm-up)."""
    trainer: str
    device: str
    world_size: int
    is_main: bool


@dataclass
class Step:
    """One joint forward: forget rows ``[:n_forget]`` then their paired retain rows."""

    inputs: dict[str, torch.Tensor]
    n_forget: int
    outputs: Any
    """What :meth:`Unlearner.forward` returned for ``inputs`` (logits by default)."""

    def forget(self, key: str) -> torch.Tensor:
        return self.inputs[key][: self.n_forget]

    def retain(self, key: str) -> torch.Tensor:
        return self.inputs[key][self.n_forget :]


def library_versions() -> dict[str, str]:
    import accelerate
    import peft
    import transformers
    import trl

    from unlearn_zoo.version import __version__

    return {
        "unlearn_zoo": __version__,
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "trl": trl.__version__,
        "peft": peft.__version__,
        "accelerate": accelerate.__version__,
        "python": platform.python_version(),
    }
