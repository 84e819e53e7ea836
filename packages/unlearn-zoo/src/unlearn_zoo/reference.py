"""Access to the frozen original model theta_p during training.

Full fine-tuning keeps a frozen deep copy. With LoRA the base weights are untouched, so the
reference is the same model with adapters disabled (no second copy in memory).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import torch
from torch import nn

from unlearn_zoo.modeling import frozen_copy, unwrap


class Reference:
    def __init__(self, model: nn.Module, use_lora: bool) -> None:
        self.copy: nn.Module | None = None if use_lora else frozen_copy(model)

    @contextlib.contextmanager
    def model(self, training_model: nn.Module, device: torch.device) -> Iterator[nn.Module]:
        """Yield a module computing theta_p's forward under ``torch.no_grad``."""
        if self.copy is not None:
            if next(self.copy.parameters()).device != device:
                self.copy.to(device)
            with torch.no_grad():
                yield self.copy
            return
        base: Any = unwrap(training_model)
        was_training = base.training
        base.eval()  # no dropout in the reference pass
        try:
            with torch.no_grad(), base.disable_adapter():
                yield base
        finally:
            base.train(was_training)
