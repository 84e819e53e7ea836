"""Recovery attacks against unlearned LLMs: sampling, FocusOnKey, quantization, relearning,
in-context. Attacks return raw responses (:class:`AttackResult`); they never judge."""

from .base import Attack, AttackConfig, AttackResult
from .errors import (
    ConfigError,
    ForgottenFactLeakError,
    MissingDependencyError,
    ModelLoadError,
    RecordError,
    RecoverAttacksError,
    UnknownAttackError,
)
from .generation import format_prompt, generate
from .loading import load_model, load_tokenizer
from .registry import ENTRY_POINT_GROUP, get_attack, get_attack_class, list_attacks
from .selection import select_successfully_unlearned

__version__ = "0.1.0"

__all__ = [
    "ENTRY_POINT_GROUP",
    "Attack",
    "AttackConfig",
    "AttackResult",
    "ConfigError",
    "ForgottenFactLeakError",
    "MissingDependencyError",
    "ModelLoadError",
    "RecordError",
    "RecoverAttacksError",
    "UnknownAttackError",
    "format_prompt",
    "generate",
    "get_attack",
    "get_attack_class",
    "list_attacks",
    "load_model",
    "load_tokenizer",
    "select_successfully_unlearned",
]
