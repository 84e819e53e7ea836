"""LLM unlearning methods (GA, GradDiff, NPO, SimNPO, RMU, TV, PALU, AS) on transformers' Trainer.

Quick use::

    from unlearn_zoo import get_unlearner
    result = get_unlearner("npo", lr=1e-5, max_steps=20).unlearn(model, tokenizer, forget, retain)
    result.model, result.record
"""

__version__ = "0.1.0"

from unlearn_zoo.base import Unlearner, UnlearnResult, save_unlearned
from unlearn_zoo.config import UnlearnConfig
from unlearn_zoo.data import format_prompt
from unlearn_zoo.defaults import default_overrides, size_tier
from unlearn_zoo.errors import UnlearnError
from unlearn_zoo.io import load_record, load_unlearned
from unlearn_zoo.registry import ENTRY_POINT_GROUP, get_unlearner, list_unlearners

__all__ = [
    "ENTRY_POINT_GROUP",
    "UnlearnConfig",
    "UnlearnError",
    "UnlearnResult",
    "Unlearner",
    "__version__",
    "default_overrides",
    "format_prompt",
    "get_unlearner",
    "list_unlearners",
    "load_record",
    "load_unlearned",
    "save_unlearned",
    "size_tier",
]
