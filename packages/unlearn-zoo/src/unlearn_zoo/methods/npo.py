"""Negative Preference Optimization (Zhang et al. 2024, arXiv 2404.05868).

L = -(2/beta) * E[log sigmoid(-beta * (log p_theta(y|x) - log p_ref(y|x)))]
    [+ retain_weight * NLL on D_R]
log-probs are summed over answer tokens; p_ref is the frozen original model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import torch
from torch import nn

from unlearn_zoo.base import Unlearner
from unlearn_zoo.config import UnlearnConfig
from unlearn_zoo.errors import UnlearnError
from unlearn_zoo.losses import nll_loss, npo_loss, sequence_logprob
from unlearn_zoo.reference import Reference


@dataclass
class NPOConfig(UnlearnConfig):
    beta: float = 0.1
    """Inverse temperature; the leakres paper fixes 0.1."""

    def validate(self) -> None:
        super().validate()
        if not self.beta > 0:
            raise UnlearnError(f"NPOConfig.beta must be > 0, got {self.beta}")


class NPOUnlearner(Unlearner):
    name: ClassVar[str] = "npo"
    config_class: ClassVar[type[UnlearnConfig]] = NPOConfig

    def prepare(self, model: nn.Module, tokenizer: Any) -> nn.Module:
        self.reference = Reference(model, self.config.use_lora)
        return model

    def loss(
        self, model: nn.Module, batch: dict[str, torch.Tensor]
    ) -> tuple[torch.Tensor, dict[str, Any]]:
        cfg: Any = self.config
        inputs, n = self.joint(batch)
        logits = model(
            input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"]
        ).logits
        labels_f = inputs["labels"][:n]
        with self.reference.model(model, logits.device) as ref:
            ref_logits = ref(
                input_ids=inputs["input_ids"][:n], attention_mask=inputs["attention_mask"][:n]
            ).logits
        logp = sequence_logprob(logits[:n], labels_f)
        ref_logp = sequence_logprob(ref_logits, labels_f)
        forget = npo_loss(logp, ref_logp, cfg.beta)
        parts: dict[str, Any] = {"forget": forget.detach(), "log_ratio": (logp - ref_logp).mean()}
        loss = forget
        if self.uses_retain():
            retain = nll_loss(logits[n:], inputs["labels"][n:])
            loss = loss + cfg.retain_weight * retain
            parts["retain_nll"] = retain.detach()
        return loss, parts
