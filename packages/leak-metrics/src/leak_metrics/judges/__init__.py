"""Judges and their registry (:mod:`leak_metrics.judges.registry`): built-in ``alias`` and
``llm``, plus plugins from entry points ``leakres.judges``.

A plugin entry point must resolve to a callable (a ``Judge`` subclass or factory) that accepts the
keyword arguments given to :func:`get_judge`. Names are case-insensitive; built-ins, including
judges added with :func:`register_judge`, come before plugins (:mod:`leak_metrics.plugins`).
"""

from __future__ import annotations

from leak_metrics.judges.alias import AliasJudge, AliasJudgeConfig
from leak_metrics.judges.answer_span import ANSWER_STOP_STRINGS, answer_stop, committed_answer
from leak_metrics.judges.base import Judge, agreement, judge_any
from leak_metrics.judges.label_sets import labelled_agreement
from leak_metrics.judges.labelled import (
    AgreementTable,
    agreement_table,
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
from leak_metrics.judges.registry import (
    ENTRY_POINT_GROUP,
    JUDGES,
    available_judges,
    get_judge,
    judge_class,
    judge_needs_endpoint,
    register_judge,
)

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
    "judge_class",
    "judge_needs_endpoint",
    "labelled_agreement",
    "load_labels",
    "parse_reply",
    "register_judge",
]
