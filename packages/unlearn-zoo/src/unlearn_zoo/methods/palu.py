"""PALU (Zhai et al. 2026, arXiv 2601.03190): local unlearning at entity-span onsets.

At the first ``onset_tokens`` answer tokens of each entity span (``spans`` found in the answer):
    L_local = mean_positions mean_{k in topK(ref logits)} (z_k - c)^2,  c = mean_v z_v (not detached)
On the other answer tokens: KL(P_theta || P_ref), averaged per token (METHODS.md; the paper's
eq. 7 prints the arguments the other way round, KL(P_ref || P_theta)).
L = L_local + lam * KL                                            [paper eq. 7, the default]
With ``retain_weight > 0`` the retain NLL joins lambda's bracket, as in METHODS.md:
L = L_local + lam * (KL + retain_weight * NLL on D_R)             (variant "palu+retain_nll(w=...)")
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import torch
from torch import nn

from unlearn_zoo.base import Step, Unlearner
from unlearn_zoo.config import UnlearnConfig
from unlearn_zoo.data import EncodedExample
from unlearn_zoo.errors import UnlearnError
from unlearn_zoo.losses import IGNORE_INDEX, palu_local_loss, token_kl


@dataclass
class PALUConfig(UnlearnConfig):
    onset_tokens: int = 3
    """N: how many leading tokens of each span are unlearned."""
    top_k: int = 50
    """K: reference top-K logits flattened at each onset position."""
    lam: float = 1.0
    """lambda: weight of the preservation term (KL, and the retain NLL when retain_weight > 0)."""

    def validate(self) -> None:
        super().validate()
        if self.onset_tokens < 1 or self.top_k < 1:
            raise UnlearnError("PALUConfig.onset_tokens and top_k must be >= 1")
        if self.lam < 0:
            raise UnlearnError(f"PALUConfig.lam must be >= 0, got {self.lam}")


class PALUUnlearner(Unlearner):
    name: ClassVar[str] = "palu"
    config_cls: ClassVar[type[UnlearnConfig]] = PALUConfig
    needs_spans: ClassVar[bool] = True
    needs_reference: ClassVar[bool] = True

    def validate_data(self, forget: list[EncodedExample]) -> None:
        self.without_onset = [i for i, e in enumerate(forget) if not any(e.onset_mask)]
        if len(self.without_onset) == len(forget):
            raise UnlearnError(
                "palu: no forget record has a span inside its answer (forget[i].spans must contain "
                "an entity string that occurs in forget[i].answer), so there is nothing to unlearn"
            )

    def forget_loss(self, model: nn.Module, step: Step) -> tuple[torch.Tensor, dict[str, Any]]:
        cfg: Any = self.config
        assert self.reference is not None
        logits = step.outputs[: step.n_forget]
        with self.reference.model(model, logits.device) as ref:
            ref_logits = ref(
                input_ids=step.forget("input_ids"), attention_mask=step.forget("attention_mask")
            ).logits
        onset = step.forget("onset_mask")
        other = (step.forget("labels") != IGNORE_INDEX) & (onset == 0)
        local = palu_local_loss(logits, ref_logits, onset, cfg.top_k)
        kl = token_kl(logits, ref_logits, other)
        return local + cfg.lam * kl, {"local": local.detach(), "kl": kl.detach()}

    def retain_loss(self, model: nn.Module, step: Step) -> tuple[torch.Tensor, dict[str, Any]]:
        nll, parts = super().retain_loss(model, step)
        return self.config.lam * nll, parts  # type: ignore[attr-defined]

    def extra_record(self) -> dict[str, Any]:
        return {"palu_forget_records_without_onset": self.without_onset}
