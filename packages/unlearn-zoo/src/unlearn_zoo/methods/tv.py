"""Task Vector negation (Ilharco et al. 2023; MUSE).

1. fine-tune a copy on D_F (NLL descent) until it overfits -> theta_over
2. theta_u = theta_p - alpha * (theta_over - theta_p) for every floating tensor
There is no retain term (retain_weight must stay 0).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import torch
from torch import nn

from unlearn_zoo.base import Unlearner
from unlearn_zoo.config import UnlearnConfig
from unlearn_zoo.errors import UnlearnError
from unlearn_zoo.losses import nll_loss


@dataclass
class TVConfig(UnlearnConfig):
    lr: float = 1e-4
    epochs: float = 5.0
    alpha: float = 1.0
    """Negation scale (paper D.7: 1.0 or 4.0; MUSE: 5.0)."""

    def validate(self) -> None:
        super().validate()
        if self.retain_weight != 0:
            raise UnlearnError("tv has no retain term: retain_weight must be 0")
        if self.use_lora and not self.merge_lora:
            raise UnlearnError("tv needs merged weights for the arithmetic: set merge_lora=True")


def negate_task_vector(
    original: dict[str, torch.Tensor], finetuned: dict[str, torch.Tensor], alpha: float
) -> dict[str, torch.Tensor]:
    """``theta_p - alpha * (theta_over - theta_p)`` for floating tensors; others copied."""
    out = {}
    for key, base in original.items():
        over = finetuned[key].to(base.device)
        out[key] = base - alpha * (over - base) if base.is_floating_point() else over.clone()
    return out


class TVUnlearner(Unlearner):
    name: ClassVar[str] = "tv"
    config_class: ClassVar[type[UnlearnConfig]] = TVConfig

    def uses_retain(self) -> bool:
        return False

    def needs_original(self) -> bool:
        return True

    def loss(
        self, model: nn.Module, batch: dict[str, torch.Tensor]
    ) -> tuple[torch.Tensor, dict[str, Any]]:
        f = self.split(batch, "forget")
        logits = model(input_ids=f["input_ids"], attention_mask=f["attention_mask"]).logits
        nll = nll_loss(logits, f["labels"])
        return nll, {"overfit_nll": nll.detach()}

    def finalize(self, model: nn.Module, original: nn.Module | None) -> nn.Module:
        assert original is not None
        with torch.no_grad():
            new = negate_task_vector(
                original.state_dict(),
                model.state_dict(),
                self.config.alpha,  # type: ignore[attr-defined]
            )
            model.load_state_dict(new, strict=True)
        return model
