"""Attention-Shifting, AS (Tan et al. NeurIPS 2025, arXiv 2510.17210).

The base model is frozen. A bottleneck adapter ``a(h) = h + s * W_up ReLU(W_down h)`` (hidden ->
``adapter_dim`` -> hidden, learnable scalar ``s``) is added on the attention output of
``adapter_layers``. Targets, from the frozen model (adapters off):
    A_target = rownorm(A_frozen * (1 - lam * 1[key is an important token]))
    L = alpha * sum_{layers, heads} KL(A_theta || A_target) on D_F
        + retain_weight * (1 - alpha) * sum KL(A_theta || A_frozen) on D_R   [paper eq. 8 at w = 1]
Important tokens are the entity ``spans`` anywhere in the prompt or answer.

The frozen model is the training model itself with its adapters switched off: every base weight is
frozen, so that *is* theta_p, with no second copy (TRL's trainers treat a LoRA policy's reference
the same way, and it holds under ZeRO-3 since it is the same sharded engine).

Placement: an adapter on layer i's attention output can only change the attention maps of
layers > i, so by default adapters sit on layers L-3 and L-2 and the KL is taken on every layer
after the first adapter layer (L-2 and L-1): "the last layers" of the paper, made trainable.
Needs eager attention (attention probabilities); the model is switched to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import torch
from torch import nn

from unlearn_zoo.base import Step, Unlearner
from unlearn_zoo.checkpoint_files import AS_ADAPTER_FILE
from unlearn_zoo.config import UnlearnConfig
from unlearn_zoo.data import EncodedExample
from unlearn_zoo.errors import UnlearnError
from unlearn_zoo.losses import attention_kl, attention_target
from unlearn_zoo.modeling import decoder_layers, unwrap


@dataclass
class ASConfig(UnlearnConfig):
    lr: float = 5e-4
    retain_weight: float = 1.0
    lam: float = 0.99
    """Suppression of important-token attention columns (paper: 0.99)."""
    alpha: float = 0.5
    """Forget/retain balance: alpha * KL_forget + (1 - alpha) * KL_retain."""
    adapter_dim: int = 64
    adapter_layers: tuple[int, ...] = (-3, -2)
    """Layers (negative = from the end) whose attention output gets an adapter."""
    kl_layers: tuple[int, ...] = ()
    """Layers whose attention maps enter the KL; empty = every layer after the first adapter."""

    def validate(self) -> None:
        super().validate()
        if not 0 <= self.lam <= 1 or not 0 <= self.alpha <= 1:
            raise UnlearnError("ASConfig.lam and alpha must be in [0, 1]")
        if not self.adapter_layers:
            raise UnlearnError("ASConfig.adapter_layers must name at least one layer")


class BottleneckAdapter(nn.Module):
    """``h + scale * up(relu(down(h)))``; ``up`` starts at zero so the adapter starts as identity."""

    def __init__(self, hidden: int, dim: int) -> None:
        super().__init__()
        self.down = nn.Linear(hidden, dim)
        self.up = nn.Linear(dim, hidden)
        self.scale = nn.Parameter(torch.ones(()))
        nn.init.zeros_(self.up.weight)
        nn.init.zeros_(self.up.bias)
        self.enabled = True

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        if not self.enabled:
            return h
        return h + self.scale * self.up(torch.relu(self.down(h)))


def _adapter_hook(module: nn.Module, _inputs: Any, output: Any) -> Any:
    adapter = module.as_adapter  # a submodule while training, a plain attribute afterwards
    if isinstance(output, tuple):
        return (adapter(output[0]), *output[1:])
    return adapter(output)


def attach_adapters(model: nn.Module, layers: list[int], dim: int) -> list[BottleneckAdapter]:
    """Add a trainable adapter after ``self_attn`` of each layer index; returns them in order."""
    blocks = decoder_layers(model)
    adapters = []
    for i in layers:
        attn = blocks[i].self_attn
        ref = next(attn.parameters())
        adapter = BottleneckAdapter(model.config.hidden_size, dim).to(ref.device, ref.dtype)
        attn.as_adapter = adapter
        attn.register_forward_hook(_adapter_hook)
        adapters.append(adapter)
    return adapters


def _set_enabled(adapters: list[BottleneckAdapter], on: bool) -> None:
    for a in adapters:
        a.enabled = on


def load_adapters(model: nn.Module, path: str | Path) -> nn.Module:
    """Re-attach saved AS adapters to a model loaded with plain transformers (in place)."""
    from safetensors.torch import load_file

    state = load_file(str(Path(path) / AS_ADAPTER_FILE)) if Path(path).is_dir() else load_file(path)
    layers = sorted({int(k.split(".")[0]) for k in state})
    dim = state[f"{layers[0]}.down.weight"].shape[0]
    adapters = attach_adapters(model, layers, dim)
    for layer, adapter in zip(layers, adapters, strict=True):
        adapter.load_state_dict(
            {k.split(".", 1)[1]: v for k, v in state.items() if k.startswith(f"{layer}.")}
        )
        adapter.requires_grad_(False)
    _detach_from_tree(model, layers)
    return model


def _detach_from_tree(model: nn.Module, layers: list[int]) -> None:
    """Keep adapters working through the hooks but outside the module tree, so that
    ``save_pretrained`` writes plain base-model weights."""
    blocks = decoder_layers(model)
    for i in layers:
        attn = blocks[i].self_attn
        adapter = attn._modules.pop("as_adapter")
        object.__setattr__(attn, "as_adapter", adapter)


class ASUnlearner(Unlearner):
    name: ClassVar[str] = "as"
    config_cls: ClassVar[type[UnlearnConfig]] = ASConfig
    supports_lora: ClassVar[bool] = False
    needs_spans: ClassVar[bool] = True
    retain_term: ClassVar[str] = "retain_attention_kl"
    retain_in_method: ClassVar[bool] = True
    frozen_forward: ClassVar[bool] = True  # the KL targets: the same model, adapters off

    def validate_data(self, forget: list[EncodedExample]) -> None:
        if not any(any(e.important_mask) for e in forget):
            raise UnlearnError(
                "as: no forget record has a span found in its question or answer "
                "(forget[i].spans), so no attention can be shifted"
            )

    def prepare(self, model: nn.Module, tokenizer: Any) -> nn.Module:
        cfg: Any = self.config
        n = len(decoder_layers(model))
        self.adapter_layers = sorted({i % n for i in cfg.adapter_layers if -n <= i < n})
        if len(self.adapter_layers) != len(cfg.adapter_layers):
            raise UnlearnError(
                f"ASConfig.adapter_layers {cfg.adapter_layers} out of range for {n} layers"
            )
        kl = [i % n for i in cfg.kl_layers] or list(range(self.adapter_layers[0] + 1, n))
        if not kl:
            raise UnlearnError("AS: no layer after the first adapter layer to take the KL on")
        self.kl_layers = sorted(set(kl))
        if hasattr(model, "set_attn_implementation"):
            model.set_attn_implementation("eager")
        else:
            model.config._attn_implementation = "eager"
        for p in model.parameters():
            p.requires_grad_(False)
        self.adapters = attach_adapters(model, self.adapter_layers, cfg.adapter_dim)
        return model

    def attentions(self, model: nn.Module, inputs: dict[str, torch.Tensor]) -> list[torch.Tensor]:
        out = model(
            input_ids=inputs["input_ids"],
            attention_mask=inputs["attention_mask"],
            output_attentions=True,
        )
        if out.attentions is None or out.attentions[0] is None:
            raise UnlearnError("AS needs attention probabilities: the model returned none")
        return [out.attentions[i] for i in self.kl_layers]

    def forward(
        self, model: nn.Module, inputs: dict[str, torch.Tensor]
    ) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
        """Attention maps of the KL layers with the adapters on, and frozen (adapters off)."""
        attn = self.attentions(model, inputs)
        _set_enabled(self.adapters, False)
        try:
            with torch.no_grad():
                frozen = self.attentions(unwrap(model), inputs)
        finally:
            _set_enabled(self.adapters, True)
        return attn, frozen

    def forget_loss(self, model: nn.Module, step: Step) -> tuple[torch.Tensor, dict[str, Any]]:
        cfg: Any = self.config
        n = step.n_forget
        attn, frozen = step.outputs
        mask, imp = step.forget("attention_mask"), step.forget("important_mask")
        kl_f = sum(
            attention_kl(a[:n], attention_target(fz[:n], imp, cfg.lam), mask)
            for a, fz in zip(attn, frozen, strict=True)
        )
        return cfg.alpha * kl_f, {"kl_forget": kl_f.detach()}

    def retain_loss(self, model: nn.Module, step: Step) -> tuple[torch.Tensor, dict[str, Any]]:
        """``(1 - alpha) * sum KL(A_theta || A_frozen)`` on the retain rows."""
        cfg: Any = self.config
        n = step.n_forget
        attn, frozen = step.outputs
        mask = step.retain("attention_mask")
        kl_r = sum(attention_kl(a[n:], fz[n:], mask) for a, fz in zip(attn, frozen, strict=True))
        return (1 - cfg.alpha) * kl_r, {"kl_retain": kl_r.detach()}

    def post_train(self, model: nn.Module, original: nn.Module | None) -> nn.Module:
        _detach_from_tree(model, self.adapter_layers)
        return model

    def save_extra(self, model: nn.Module, output_dir: Path) -> None:
        from safetensors.torch import save_file

        state = {}
        for layer, adapter in zip(self.adapter_layers, self.adapters, strict=True):
            for k, v in adapter.state_dict().items():
                state[f"{layer}.{k}"] = v.detach().cpu().contiguous()
        save_file(state, str(output_dir / AS_ADAPTER_FILE))

    def extra_record(self) -> dict[str, Any]:
        return {
            "as_adapter_layers": self.adapter_layers,
            "as_kl_layers": self.kl_layers,
            "as_adapter_file": AS_ADAPTER_FILE,
        }
