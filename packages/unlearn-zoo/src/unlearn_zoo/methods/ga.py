"""Gradient Ascent (GA) and Gradient Difference (GradDiff).

GA:       L = -NLL(y | x) on D_F (mean over answer tokens) [+ retain_weight * NLL on D_R]
GradDiff: the same with a retain term on by default (retain_weight = 1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import torch
from torch import nn

from unlearn_zoo.base import Unlearner
from unlearn_zoo.config import UnlearnConfig
from unlearn_zoo.losses import ga_loss, nll_loss


@dataclass
class GAConfig(UnlearnConfig):
    lr: float = 1e-5
    """GA collapses fast: keep the learning rate low and the step count small."""
    loss_bound: float | None = 50.0
    """Stop when the forget NLL passes 50 nats/token (far beyond uniform over the vocab)."""


@dataclass
class GradDiffConfig(GAConfig):
    retain_weight: float = 1.0


class GAUnlearner(Unlearner):
    name: ClassVar[str] = "ga"
    config_class: ClassVar[type[UnlearnConfig]] = GAConfig

    def loss(
        self, model: nn.Module, batch: dict[str, torch.Tensor]
    ) -> tuple[torch.Tensor, dict[str, Any]]:
        inputs, n = self.joint(batch)
        logits = model(
            input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"]
        ).logits
        forget = ga_loss(logits[:n], inputs["labels"][:n])
        parts: dict[str, Any] = {"forget": forget.detach()}
        loss = forget
        if self.uses_retain():
            retain = nll_loss(logits[n:], inputs["labels"][n:])
            loss = loss + self.config.retain_weight * retain
            parts["retain_nll"] = retain.detach()
        return loss, parts


class GradDiffUnlearner(GAUnlearner):
    name: ClassVar[str] = "graddiff"
    config_class: ClassVar[type[UnlearnConfig]] = GradDiffConfig
