"""Gradient Ascent (GA) and Gradient Difference (GradDiff).

GA:       L = -NLL(y | x) on D_F (mean over answer tokens)   [paper eq. 3]
          (+ retain_weight * NLL on D_R: variant "ga+retain_nll(w=...)")
GradDiff: GA + retain_weight * NLL on D_R, retain_weight = 1 by default (the method itself).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import torch
from torch import nn

from unlearn_zoo.base import Step, Unlearner
from unlearn_zoo.config import UnlearnConfig
from unlearn_zoo.losses import ga_loss


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
    config_cls: ClassVar[type[UnlearnConfig]] = GAConfig

    def forget_loss(self, model: nn.Module, step: Step) -> tuple[torch.Tensor, dict[str, Any]]:
        forget = ga_loss(step.outputs[: step.n_forget], step.forget("labels"))
        return forget, {"forget": forget.detach()}


class GradDiffUnlearner(GAUnlearner):
    name: ClassVar[str] = "graddiff"
    config_cls: ClassVar[type[UnlearnConfig]] = GradDiffConfig
    retain_in_method: ClassVar[bool] = True
