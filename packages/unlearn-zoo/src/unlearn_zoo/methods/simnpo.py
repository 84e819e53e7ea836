"""SimNPO (Fan et al. 2024, arXiv 2410.07163): reference-free, length-normalised NPO.

L = -(2/beta) * E[log sigmoid(-(beta/|y|) * log p_theta(y|x) - gamma)]
    [+ retain_weight * NLL on D_R]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import torch
from torch import nn

from unlearn_zoo.base import Unlearner
from unlearn_zoo.config import UnlearnConfig
from unlearn_zoo.errors import UnlearnError
from unlearn_zoo.losses import answer_lengths, nll_loss, sequence_logprob, simnpo_loss


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
    config_class: ClassVar[type[UnlearnConfig]] = SimNPOConfig

    def loss(
        self, model: nn.Module, batch: dict[str, torch.Tensor]
    ) -> tuple[torch.Tensor, dict[str, Any]]:
        cfg: Any = self.config
        inputs, n = self.joint(batch)
        logits = model(
            input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"]
        ).logits
        labels_f = inputs["labels"][:n]
        forget = simnpo_loss(
            sequence_logprob(logits[:n], labels_f), answer_lengths(labels_f), cfg.beta, cfg.gamma
        )
        parts: dict[str, Any] = {"forget": forget.detach()}
        loss = forget
        if self.uses_retain():
            retain = nll_loss(logits[n:], inputs["labels"][n:])
            loss = loss + cfg.retain_weight * retain
            parts["retain_nll"] = retain.detach()
        return loss, parts
