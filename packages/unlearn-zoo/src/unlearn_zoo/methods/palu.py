"""PALU (Zhai et al. 2026, arXiv 2601.03190): local unlearning at entity-span onsets.

At the first ``onset_tokens`` answer tokens of each entity span (``spans`` found in the answer):
    L_local = mean_positions mean_{k in topK(ref logits)} (z_k - c)^2,  c = mean_v z_v (not detached)
On the other answer tokens: KL(P_theta || P_ref).
L = L_local + lam * (KL + retain_weight * NLL on D_R)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import torch
from torch import nn

from unlearn_zoo.base import Unlearner
from unlearn_zoo.config import UnlearnConfig
from unlearn_zoo.data import EncodedExample
from unlearn_zoo.errors import UnlearnError
from unlearn_zoo.losses import nll_loss, palu_local_loss, token_kl
from unlearn_zoo.reference import Reference


@dataclass
class PALUConfig(UnlearnConfig):
    retain_weight: float = 1.0
    onset_tokens: int = 3
    """N: how many leading tokens of each span are unlearned."""
    top_k: int = 50
    """K: reference top-K logits flattened at each onset position."""
    lam: float = 1.0
    """lambda: weight of the preservation terms (KL + retain NLL)."""

    def validate(self) -> None:
        super().validate()
        if self.onset_tokens < 1 or self.top_k < 1:
            raise UnlearnError("PALUConfig.onset_tokens and top_k must be >= 1")
        if self.lam < 0:
            raise UnlearnError(f"PALUConfig.lam must be >= 0, got {self.lam}")


class PALUUnlearner(Unlearner):
    name: ClassVar[str] = "palu"
    config_class: ClassVar[type[UnlearnConfig]] = PALUConfig
    needs_spans: ClassVar[bool] = True

    def validate_data(self, forget: list[EncodedExample]) -> None:
        self.without_onset = [i for i, e in enumerate(forget) if not any(e.onset_mask)]
        if len(self.without_onset) == len(forget):
            raise UnlearnError(
                "palu: no forget record has a span inside its answer (forget[i].spans must contain "
                "an entity string that occurs in forget[i].answer), so there is nothing to unlearn"
            )

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
        with self.reference.model(model, logits.device) as ref:
            ref_logits = ref(
                input_ids=inputs["input_ids"][:n], attention_mask=inputs["attention_mask"][:n]
            ).logits
        onset = inputs["onset_mask"][:n]
        other = (inputs["labels"][:n] != -100) & (onset == 0)
        local = palu_local_loss(logits[:n], ref_logits, onset, cfg.top_k)
        kl = token_kl(logits[:n], ref_logits, other)
        preserve = kl
        parts: dict[str, Any] = {"local": local.detach(), "kl": kl.detach()}
        if self.uses_retain():
            retain = nll_loss(logits[n:], inputs["labels"][n:])
            preserve = preserve + cfg.retain_weight * retain
            parts["retain_nll"] = retain.detach()
        return local + cfg.lam * preserve, parts

    def extra_record(self) -> dict[str, Any]:
        return {"palu_forget_records_without_onset": self.without_onset}
