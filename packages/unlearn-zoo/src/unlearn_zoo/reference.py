"""The frozen original model theta_p that NPO, PALU and RMU compare against during training.

Made the way TRL's own trainers make their reference models (``DPOTrainer``), so it works on one
device, under DDP, FSDP and DeepSpeed ZeRO-3:

- with LoRA the base weights never change, so theta_p is the training model with its adapters
  disabled (``trl.trainer.utils.use_adapter(model, None)``): no second copy in memory;
- otherwise a frozen copy from ``trl.experimental.utils.create_reference_model`` (a deep copy, every
  parameter ``requires_grad=False``, eval mode). Under ZeRO-3 a partitioned model cannot be deep
  copied, so the copy is loaded from the model's own path (``create_model_from_path``, as TRL does);
- once the trainer exists, :meth:`Reference.prepare` places the copy the way the run shards the
  policy: ``prepare_deepspeed`` (ZeRO-3 shards the reference too), ``prepare_fsdp``, or
  ``accelerator.prepare_model(..., evaluation_mode=True)`` (a device move, never a DDP wrapper).
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from typing import Any

import torch
from torch import nn

from unlearn_zoo.errors import UnlearnError
from unlearn_zoo.modeling import unwrap


def zero3_enabled() -> bool:
    from transformers.integrations.deepspeed import is_deepspeed_zero3_enabled

    return bool(is_deepspeed_zero3_enabled())


def frozen_reference(model: nn.Module) -> nn.Module:
    """A frozen, eval-mode theta_p equal to ``model`` now (TRL's reference-model helpers)."""
    if zero3_enabled():
        from trl.trainer.utils import create_model_from_path, get_config_model_id

        path = get_config_model_id(model.config)
        if not path:
            raise UnlearnError(
                "under DeepSpeed ZeRO-3 the frozen reference is loaded from the model's path "
                "(config._name_or_path), which is empty: load the model with from_pretrained(path)"
            )
        ref = create_model_from_path(
            path,
            dtype=next(model.parameters()).dtype,
            attn_implementation=model.config._attn_implementation,
            use_safetensors=True,
        )
        ref.requires_grad_(False)
        return ref.eval()
    with warnings.catch_warnings():
        # TRL moved its long-standing helper under trl.experimental (1.x) and warns on import.
        warnings.filterwarnings("ignore", message=r".*trl\.experimental.*")
        from trl.experimental.utils import create_reference_model

    return create_reference_model(model)


class Reference:
    """theta_p for a training model: a frozen copy, or the model with its LoRA adapters disabled."""

    def __init__(self, model: nn.Module, use_lora: bool) -> None:
        self.copy: nn.Module | None = None if use_lora else frozen_reference(model)

    def prepare(self, accelerator: Any) -> None:
        """Place the copy like the run places the policy; call once the Trainer exists."""
        if self.copy is None:
            return
        state = accelerator.state
        if getattr(state, "deepspeed_plugin", None) is not None:
            from trl.models.utils import prepare_deepspeed

            self.copy = prepare_deepspeed(self.copy, accelerator)
        elif getattr(state, "fsdp_plugin", None) is not None:
            from trl.models.utils import prepare_fsdp

            self.copy = prepare_fsdp(self.copy, accelerator)
        else:
            self.copy = accelerator.prepare_model(self.copy, evaluation_mode=True)

    @contextlib.contextmanager
    def model(self, training_model: nn.Module, device: torch.device) -> Iterator[nn.Module]:
        """Yield a module computing theta_p's forward under ``torch.no_grad``."""
        if self.copy is not None:
            if next(self.copy.parameters()).device != device:
                self.copy.to(device)
            with torch.no_grad():
                yield self.copy
            return
        from trl.trainer.utils import use_adapter

        base: Any = unwrap(training_model)
        was_training = base.training
        base.eval()  # no dropout in the reference pass
        try:
            with torch.no_grad(), use_adapter(base, None):
                yield base
        finally:
            base.train(was_training)
