"""Judge registry: built-in ``alias`` and ``llm``, plus plugins from entry points ``leakres.judges``.

A plugin entry point must resolve to a callable (a ``Judge`` subclass or factory) that accepts the
keyword arguments given to :func:`get_judge`. Names are case-insensitive; built-ins, including
judges added with :func:`register_judge`, come before plugins (:mod:`leak_metrics.plugins`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from leak_metrics.judges.alias import AliasJudge, AliasJudgeConfig
from leak_metrics.judges.answer_span import ANSWER_STOP_STRINGS, answer_stop, committed_answer
from leak_metrics.judges.base import Judge, agreement, judge_any
from leak_metrics.judges.labelled import (
    AgreementTable,
    agreement_table,
    labelled_agreement,
    load_labels,
)
from leak_metrics.judges.llm import (
    COMMITTED_ANSWER_RULE,
    HEDGE_RULE,
    PROMPT_VERSION,
    YES_NO_RULE,
    LLMJudge,
    LLMJudgeConfig,
    OpenAIBackendConfig,
    build_messages,
    parse_reply,
)
from leak_metrics.plugins import Registry

ENTRY_POINT_GROUP = "leakres.judges"


def _alias_factory(**kwargs: Any) -> Judge:
    return AliasJudge(AliasJudgeConfig(**kwargs))


JUDGES: Registry[Callable[..., Judge]] = Registry(
    "judge",
    ENTRY_POINT_GROUP,
    {"alias": _alias_factory, "llm": LLMJudge.from_openai},
)


def register_judge(name: str, factory: Callable[..., Judge]) -> None:
    """Register a judge factory under ``name``: it replaces a built-in of that name and takes
    precedence over plugins."""
    JUDGES.register(name, factory)


def available_judges() -> list[str]:
    """Names accepted by :func:`get_judge` (built-ins first, then plugins)."""
    return JUDGES.names()


def get_judge(name: str, **overrides: Any) -> Judge:
    """Build the judge registered as ``name`` with ``overrides``.

    ``get_judge("alias")``; ``get_judge("llm", model="gpt-4o-mini", base_url=..., api_key=...)``.
    """
    return JUDGES.get(name)(**overrides)


__all__ = [
    "ANSWER_STOP_STRINGS",
    "COMMITTED_ANSWER_RULE",
    "ENTRY_POINT_GROUP",
    "HEDGE_RULE",
    "JUDGES",
    "PROMPT_VERSION",
    "YES_NO_RULE",
    "AgreementTable",
    "AliasJudge",
    "AliasJudgeConfig",
    "Judge",
    "LLMJudge",
    "LLMJudgeConfig",
    "OpenAIBackendConfig",
    "agreement",
    "agreement_table",
    "answer_stop",
    "available_judges",
    "build_messages",
    "committed_answer",
    "get_judge",
    "judge_any",
    "labelled_agreement",
    "load_labels",
    "parse_reply",
    "register_judge",
]
