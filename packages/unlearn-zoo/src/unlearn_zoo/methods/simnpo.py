"""SimNPO (Fan et al. 2024, arXiv 2410.07163): reference-free, length-normalised NPO.

L = -(2/beta) * E[log sigmoid(-(beta/|y|) * log p_theta(y|x) - gamma)]
    (+ retain_weight * NLL on D_R: variant "simnpo+retain_nll(w=...)")
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import torch
from torch import nn

from unlearn_zoo.base import Step, Unlearner
from unlearn_zoo.config import UnlearnConfig
from unlearn_zoo.errors import UnlearnError
from unlearn_zoo.losses import answer_lengths, sequence_logprob, simnpo_loss


@dataclass
class SimNPOConfig(UnlearnConfig):
    beta: float = 2.5
    """SimNPO paper default for TOFU."""
    gamma: float = 0.0
    """Reward margin."""

    def validate(self) -> None:
        super().validate()
        if not self.beta > 0:
            raise UnlearnError(f"SimNPOConfig.beta must be > 0, got {self.beta}")


class SimNPOUnlearner(Unlearner):
    name: ClassVar[str] = "simnpo"
    config_cls: ClassVar[type[UnlearnConfig]] = SimNPOConfig

    def forget_loss(self, model: nn.Module, step: Step) -> tuple[torch.Tensor, dict[str, Any]]:
        cfg: Any = self.config
        labels = step.forget("labels")
        logp = sequence_logprob(step.outputs[: step.n_forget], labels)
        forget = simnpo_loss(logp, answer_lengths(labels), cfg.beta, cfg.gamma)
        return forget, {"forget": forget.detach()}
