"""Task Vector negation (Ilharco et al. 2023; MUSE).

1. fine-tune a copy on D_F until it overfits -> theta_over, with TRL's ``SFTTrainer``
   (completion-only NLL on the answer after the chat prompt; :mod:`unlearn_zoo.sft`)
2. theta_u = theta_p - alpha * (theta_over - theta_p) for every floating tensor   [paper eq. 6]
There is no retain term (retain_weight must stay 0).
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

import torch
from torch import nn

from unlearn_zoo.base import EncodedSets, Unlearner
from unlearn_zoo.config import UnlearnConfig
from unlearn_zoo.errors import UnlearnError
from unlearn_zoo.sft import IndexedCollator, guarded_sft_trainer, remove_fused_head, sft_dataset
from unlearn_zoo.training import LossGuard, SeenTracker


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
    config_cls: ClassVar[type[UnlearnConfig]] = TVConfig

    def uses_retain(self) -> bool:
        return False

    def needs_original(self) -> bool:
        return True

    def build_trainer(
        self,
        model: nn.Module,
        tokenizer: Any,
        encoded: EncodedSets,
        args: dict[str, Any],
        guard: LossGuard,
        tracker: SeenTracker,
    ) -> Any:
        """TRL's ``SFTTrainer`` on the forget set: the overfitting fine-tune of step 1."""
        from trl import SFTConfig
        from trl.trainer.sft_trainer import DataCollatorForLanguageModeling

        # SFTTrainer sets a missing pad token on the tokenizer it is given: hand it a copy.
        tokenizer = copy.deepcopy(tokenizer)
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
        config = SFTConfig(
            **args,
            completion_only_loss=True,  # loss on the answer tokens only
            max_length=None,  # encode_records already fitted prompt + answer into max_length
        )
        collator = DataCollatorForLanguageModeling(pad_token_id=tokenizer.pad_token_id)
        return guarded_sft_trainer(
            guard=guard,
            tracker=tracker,
            part="overfit_nll",
            model=model,
            args=config,
            train_dataset=sft_dataset(encoded.forget),
            processing_class=tokenizer,
            data_collator=IndexedCollator(collator),
        )

    @contextlib.contextmanager
    def checkpoint_model(self, model: nn.Module, original: nn.Module | None) -> Iterator[nn.Module]:
        """TV's unlearned model if training stopped now: theta_p - alpha * (theta_k - theta_p),
        applied in place for the evaluation and undone after (exactly: the trained values are
        copied back). Full fine-tune: the negation of every trainable tensor (the others equal
        theta_p's, so negating them changes nothing), with one copy of them held meanwhile; LoRA:
        each adapter's scale times -alpha (W0 + s*BA becomes W0 - alpha*s*BA), no copy."""
        alpha = float(self.config.alpha)  # type: ignore[attr-defined]
        if self.config.use_lora:
            layers = [m for m in model.modules() if isinstance(getattr(m, "scaling", None), dict)]
            saved_scales = [dict(m.scaling) for m in layers]
            for m in layers:
                m.scaling.update({k: -alpha * v for k, v in m.scaling.items()})
            try:
                yield model
            finally:
                for m, scales in zip(layers, saved_scales, strict=True):
                    m.scaling.update(scales)
            return
        assert original is not None
        base = dict(original.named_parameters())
        trained = {n: p for n, p in model.named_parameters() if p.requires_grad}
        saved = {n: p.detach().clone() for n, p in trained.items()}
        with torch.no_grad():
            for n, p in trained.items():
                theta_p = base[n].to(p.device)
                p.copy_(theta_p - alpha * (p - theta_p))
        try:
            yield model
        finally:
            with torch.no_grad():
                for n, p in trained.items():
                    p.copy_(saved[n])

    def post_train(self, model: nn.Module, original: nn.Module | None) -> nn.Module:
        assert original is not None
        remove_fused_head(model)
        with torch.no_grad():
            new = negate_task_vector(
                original.state_dict(),
                model.state_dict(),
                self.config.alpha,  # type: ignore[attr-defined]
            )
            model.load_state_dict(new, strict=True)
        return model
