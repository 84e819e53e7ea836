"""Representation Misdirection for Unlearning (Li et al. 2024, WMDP).

forget = mean_tokens ||h_l(x_F) - c*u||^2          (u: uniform random unit vector, fixed per seed)
retain = mean_tokens ||h_l(x_R) - h_l^frozen(x_R)||^2
L = forget + retain_weight * alpha * retain           [paper eq. 5 at retain_weight = 1]
h_l is the output of decoder layer ``layer``; only ``trained_params`` are updated
(default: mlp.down_proj of layers l-2..l). Squared errors are averaged over hidden dims too,
as torch's mse_loss does in the WMDP code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

import torch
from torch import nn

from unlearn_zoo.base import Step, Unlearner
from unlearn_zoo.config import UnlearnConfig
from unlearn_zoo.errors import UnlearnError
from unlearn_zoo.losses import rmu_forget_loss, rmu_retain_loss
from unlearn_zoo.modeling import decoder_layers, layer_prefix, set_trainable, unwrap


@dataclass
class RMUConfig(UnlearnConfig):
    lr: float = 5e-5
    retain_weight: float = 1.0
    """Multiplies ``alpha``; 0 drops the retain term."""
    layer: int | None = None
    """Decoder layer l whose output is steered; None = round(7/32 * num_layers) (WMDP: 7 of 32)."""
    steering_coeff: float = 6.5
    """c, the norm of the control vector (WMDP Zephyr-7B: 6.5; needs tuning per model)."""
    alpha: float = 1200.0
    """Retain weight (WMDP Zephyr-7B: 1200)."""
    trained_params: tuple[str, ...] = ()
    """Regexes over parameter names to train; empty = mlp.down_proj of layers l-2..l."""
    token_scope: str = "all"
    """Forget-term tokens: "all" non-padding tokens (WMDP) or "answer" tokens only."""

    def validate(self) -> None:
        super().validate()
        if self.token_scope not in ("all", "answer"):
            raise UnlearnError(
                f"RMUConfig.token_scope must be 'all' or 'answer', got {self.token_scope!r}"
            )
        if self.steering_coeff <= 0:
            raise UnlearnError(f"RMUConfig.steering_coeff must be > 0, got {self.steering_coeff}")


class _Captured(Exception):
    """Stops the forward right after layer l: later layers are not needed for RMU."""


class RMUUnlearner(Unlearner):
    name: ClassVar[str] = "rmu"
    config_cls: ClassVar[type[UnlearnConfig]] = RMUConfig
    needs_reference: ClassVar[bool] = True
    retain_term: ClassVar[str] = "retain_mse"
    retain_in_method: ClassVar[bool] = True

    def resolve_layer(self, model: nn.Module) -> int:
        n = len(decoder_layers(model))
        layer = self.config.layer  # type: ignore[attr-defined]
        if layer is None:
            layer = max(0, round(7 / 32 * n))
        if not 0 <= layer < n:
            raise UnlearnError(f"RMUConfig.layer={layer} out of range for a {n}-layer model")
        return layer

    def param_patterns(self, model: nn.Module) -> list[str]:
        cfg: Any = self.config
        if cfg.trained_params:
            return list(cfg.trained_params)
        prefix = re.escape(layer_prefix(model))
        layers = range(max(0, self.layer - 2), self.layer + 1)
        return [rf"{prefix}\.{i}\.mlp\.down_proj\.weight$" for i in layers]

    def prepare(self, model: nn.Module, tokenizer: Any) -> nn.Module:
        cfg: Any = self.config
        self.layer = self.resolve_layer(model)
        hidden = model.config.hidden_size
        gen = torch.Generator().manual_seed(cfg.seed)
        u = torch.rand(hidden, generator=gen)
        self.control = cfg.steering_coeff * u / u.norm()
        self.trained_names = set_trainable(model, self.param_patterns(model))
        return model

    def lora_targets(self, model: nn.Module) -> list[str]:
        # LoRA on exactly the modules RMU would train (names without the ".weight" suffix).
        return [n.rsplit(".", 1)[0] for n in self.trained_names]

    def hidden_at_layer(self, model: nn.Module, inputs: dict[str, torch.Tensor]) -> torch.Tensor:
        store: dict[str, torch.Tensor] = {}
        # Aborting a DDP-wrapped forward would skip DDP's bookkeeping: only cut short otherwise.
        stop_early = not (model is not unwrap(model) and torch.distributed.is_initialized())

        def hook(_m: nn.Module, _i: Any, out: Any) -> None:
            store["h"] = out[0] if isinstance(out, tuple) else out
            if stop_early:
                raise _Captured

        handle = decoder_layers(unwrap(model))[self.layer].register_forward_hook(hook)
        try:
            model(input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"])
        except _Captured:
            pass
        finally:
            handle.remove()
        return store["h"]

    def forward(self, model: nn.Module, inputs: dict[str, torch.Tensor]) -> torch.Tensor:
        """The output of decoder layer ``l`` ``[B, T, H]`` (the forward stops there)."""
        return self.hidden_at_layer(model, inputs)

    def forget_loss(self, model: nn.Module, step: Step) -> tuple[torch.Tensor, dict[str, Any]]:
        cfg: Any = self.config
        hidden = step.outputs[: step.n_forget]
        if cfg.token_scope == "answer":
            mask = step.forget("labels") != -100
        else:
            mask = step.forget("attention_mask").bool()
        forget = rmu_forget_loss(hidden, self.control.to(hidden.device, hidden.dtype), mask)
        return forget, {"forget": forget.detach()}

    def retain_loss(self, model: nn.Module, step: Step) -> tuple[torch.Tensor, dict[str, Any]]:
        """``alpha * mean ||h_l(x_R) - h_l^frozen(x_R)||^2``."""
        assert self.reference is not None
        hidden = step.outputs[step.n_forget :]
        retain_inputs = {k: step.retain(k) for k in step.inputs}
        with self.reference.model(model, hidden.device) as ref:
            frozen = self.hidden_at_layer(ref, retain_inputs)
        retain = rmu_retain_loss(hidden, frozen, retain_inputs["attention_mask"].bool())
        return self.config.alpha * retain, {"retain": retain.detach()}  # type: ignore[attr-defined]

    def extra_record(self) -> dict[str, Any]:
        return {"rmu_layer": self.layer, "rmu_trained_params": self.trained_names}
