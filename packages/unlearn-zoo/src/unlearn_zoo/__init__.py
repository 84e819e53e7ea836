"""LLM unlearning methods (GA, GradDiff, NPO, SimNPO, RMU, TV, PALU, AS) on transformers' Trainer
and TRL.

Quick use::

    from unlearn_zoo import get_unlearner
    result = get_unlearner("npo", lr=1e-5, epochs=3).unlearn(model, tokenizer, forget, retain)
    result.model, result.record  # record["variant"], ["epochs_completed"], ["forget_examples_seen"]
"""

from unlearn_zoo.base import Step, Unlearner, UnlearnResult
from unlearn_zoo.chat_format import format_prompt
from unlearn_zoo.checkpoint import save_unlearned
from unlearn_zoo.config import UnlearnConfig
from unlearn_zoo.defaults import default_overrides, size_tier
from unlearn_zoo.errors import UnknownNameError, UnlearnError
from unlearn_zoo.io import load_record, load_unlearned
from unlearn_zoo.registry import (
    ENTRY_POINT_GROUP,
    available_unlearners,
    get_unlearner,
    get_unlearner_class,
    list_unlearners,
)
from unlearn_zoo.run_types import MethodNeeds
from unlearn_zoo.teaching import TeachResult, TeachSettings, teach
from unlearn_zoo.tracking import REPORT_TO, Tracking
from unlearn_zoo.trajectory import TrajectoryCallback
from unlearn_zoo.version import __version__

__all__ = [
    "ENTRY_POINT_GROUP",
    "REPORT_TO",
    "MethodNeeds",
    "Step",
    "TeachResult",
    "TeachSettings",
    "Tracking",
    "TrajectoryCallback",
    "UnknownNameError",
    "UnlearnConfig",
    "UnlearnError",
    "UnlearnResult",
    "Unlearner",
    "__version__",
    "available_unlearners",
    "default_overrides",
    "format_prompt",
    "get_unlearner",
    "get_unlearner_class",
    "list_unlearners",
    "load_record",
    "load_unlearned",
    "save_unlearned",
    "size_tier",
    "teach",
]
