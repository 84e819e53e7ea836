"""Negative Preference Optimization (Zhang et al. 2024, arXiv 2404.05868).

L = -(2/beta) * E[log sigmoid(-beta * (log p_theta(y|x) - log p_ref(y|x)))]   [paper eq. 4]
log-probs are summed over answer tokens; p_ref is the frozen original model. The paper's form is
the default; ``retain_weight > 0`` adds ``retain_weight * NLL on D_R`` (variant
"npo+retain_nll(w=...)").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import torch
from torch import nn

from unlearn_zoo.base import Step, Unlearner
from unlearn_zoo.config import UnlearnConfig
from unlearn_zoo.errors import UnlearnError
from unlearn_zoo.losses import npo_loss, sequence_logprob


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
    config_cls: ClassVar[type[UnlearnConfig]] = NPOConfig
    needs_reference: ClassVar[bool] = True

    def forget_loss(self, model: nn.Module, step: Step) -> tuple[torch.Tensor, dict[str, Any]]:
        cfg: Any = self.config
        assert self.reference is not None
        logits, labels = step.outputs[: step.n_forget], step.forget("labels")
        with self.reference.model(model, logits.device) as ref:
            ref_logits = ref(
                input_ids=step.forget("input_ids"), attention_mask=step.forget("attention_mask")
            ).logits
        logp = sequence_logprob(logits, labels)
        ref_logp = sequence_logprob(ref_logits, labels)
        forget = npo_loss(logp, ref_logp, cfg.beta)
        return forget, {"forget": forget.detach(), "log_ratio": (logp - ref_logp).mean().detach()}
