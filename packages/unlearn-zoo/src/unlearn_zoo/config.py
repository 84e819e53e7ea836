"""Typed hyperparameters shared by every method; each method subclasses :class:`UnlearnConfig`."""

from __future__ import annotations

import dataclasses
import difflib
import types
import typing
from dataclasses import dataclass, fields
from typing import Any

from unlearn_zoo.errors import UnlearnError

DEFAULT_LORA_TARGETS: tuple[str, ...] = (
    "q_proj",
    "k_proj",
    "v_proj",
    "o_proj",
    "gate_proj",
    "up_proj",
    "down_proj",
)


@dataclass
class UnlearnConfig:
    """Fields every method understands. Defaults are conservative; see ``default_overrides``."""

    lr: float = 1e-5
    """Peak learning rate (AdamW, constant schedule)."""
    epochs: float = 3.0
    """Passes over the forget set: the training budget (the paper uses 2-5)."""
    max_steps: int | None = None
    """Cap on optimizer steps: training stops at whichever of ``epochs`` and ``max_steps`` comes
    first, and the record's ``cap_hit`` says when the cap cut the epochs short. None = no cap."""
    batch_size: int = 4
    """Forget examples per device per step (each is paired with one retain example)."""
    grad_accum_steps: int = 1
    seed: int = 0
    use_lora: bool = False
    """Train LoRA adapters (peft) instead of the full weights."""
    lora_r: int = 16
    lora_alpha: int = 32
    lora_dropout: float = 0.0
    lora_target_modules: tuple[str, ...] = DEFAULT_LORA_TARGETS
    merge_lora: bool = True
    """Merge LoRA into the weights so the result is a plain transformers model."""
    gradient_checkpointing: bool = False
    max_length: int = 128
    """Prompt + answer tokens; the prompt is cut from the left when longer."""
    retain_weight: float = 0.0
    """Weight of the method's retain term; 0 disables it (and retain data is then unused)."""
    grad_clip: float = 1.0
    """Max gradient norm (0 disables clipping)."""
    loss_bound: float | None = 1e4
    """Stop (keeping the last good weights) when |loss| exceeds this; None disables the check."""

    def validate(self) -> None:
        """Raise :class:`UnlearnError` on values that cannot work."""
        if not self.lr > 0:
            raise UnlearnError(f"config field 'lr' must be > 0, got {self.lr!r}")
        if not self.epochs > 0:
            raise UnlearnError(f"config field 'epochs' must be > 0, got {self.epochs!r}")
        if self.max_steps is not None and self.max_steps < 1:
            raise UnlearnError(f"config field 'max_steps' must be >= 1, got {self.max_steps!r}")
        for name in ("batch_size", "grad_accum_steps", "max_length", "lora_r"):
            if getattr(self, name) < 1:
                raise UnlearnError(
                    f"config field '{name}' must be >= 1, got {getattr(self, name)!r}"
                )
        if self.retain_weight < 0:
            raise UnlearnError(
                f"config field 'retain_weight' must be >= 0, got {self.retain_weight}"
            )
        if self.loss_bound is not None and not self.loss_bound > 0:
            raise UnlearnError(
                f"config field 'loss_bound' must be > 0 or None, got {self.loss_bound}"
            )


def _coerce(cls: type, name: str, hint: Any, value: Any) -> Any:
    """Light type check so a typo like lr='1e-5' fails loudly instead of deep inside training."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        return _coerce(cls, name, inner[0], value)
    if hint is bool:
        if isinstance(value, bool):
            return value
    elif hint is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    elif hint is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif hint is str:
        if isinstance(value, str):
            return value
    elif origin is tuple:
        if isinstance(value, (list, tuple)):
            return tuple(value)
        if isinstance(value, str):
            return (value,)
    else:
        return value
    raise UnlearnError(
        f"{cls.__name__}.{name} expects {getattr(hint, '__name__', hint)}, got {value!r}"
    )


def build_config(cls: type[UnlearnConfig], overrides: dict[str, Any]) -> UnlearnConfig:
    """Instantiate ``cls`` with ``overrides``; unknown names get a did-you-mean error."""
    known = [f.name for f in fields(cls)]
    hints = typing.get_type_hints(cls)
    clean: dict[str, Any] = {}
    for key, value in overrides.items():
        if key not in known:
            close = difflib.get_close_matches(key, known, n=1)
            hint = f" did you mean '{close[0]}'?" if close else ""
            raise UnlearnError(
                f"unknown config field '{key}' for {cls.__name__};{hint} Known: {', '.join(known)}"
            )
        clean[key] = _coerce(cls, key, hints[key], value)
    config = cls(**clean)
    config.validate()
    return config


def config_to_dict(config: UnlearnConfig) -> dict[str, Any]:
    """JSON-able view (tuples become lists)."""
    out = dataclasses.asdict(config)
    return {k: list(v) if isinstance(v, tuple) else v for k, v in out.items()}
