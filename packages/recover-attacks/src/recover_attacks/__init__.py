"""Recovery attacks against unlearned LLMs: sampling, FocusOnKey, quantization, relearning,
in-context. Attacks return raw responses (:class:`AttackResult`); they never judge."""

from .base import Attack, AttackConfig, AttackInputs, AttackResult
from .budget_axis import BudgetAxis
from .budgets import LadderRun, ladder_runs, parse_budgets, responses_at
from .errors import (
    ConfigError,
    ForgottenFactLeakError,
    MissingDependencyError,
    MissingInputError,
    ModelLoadError,
    RecordError,
    RecoverAttacksError,
    UnknownAttackError,
    UnknownNameError,
)
from .generation import format_prompt, generate
from .loading import load_model, load_tokenizer
from .registry import (
    ENTRY_POINT_GROUP,
    available_attacks,
    get_attack,
    get_attack_class,
    list_attacks,
)
from .selection import select_successfully_unlearned

__version__ = "0.1.0"

__all__ = [
    "ENTRY_POINT_GROUP",
    "Attack",
    "AttackConfig",
    "AttackInputs",
    "AttackResult",
    "BudgetAxis",
    "ConfigError",
    "ForgottenFactLeakError",
    "LadderRun",
    "MissingDependencyError",
    "MissingInputError",
    "ModelLoadError",
    "RecordError",
    "RecoverAttacksError",
    "UnknownAttackError",
    "UnknownNameError",
    "available_attacks",
    "format_prompt",
    "generate",
    "get_attack",
    "get_attack_class",
    "ladder_runs",
    "list_attacks",
    "load_model",
    "load_tokenizer",
    "parse_budgets",
    "responses_at",
    "select_successfully_unlearned",
]
