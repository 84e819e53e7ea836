"""Judge registry: built-in ``alias`` and ``llm``, plus plugins from entry points ``leakres.judges``.

A plugin entry point must resolve to a callable (a ``Judge`` subclass or factory) that accepts the
keyword arguments given to :func:`get_judge`.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

from leak_metrics.errors import UnknownNameError
from leak_metrics.judges.alias import AliasJudge, AliasJudgeConfig
from leak_metrics.judges.base import Judge, agreement, judge_any
from leak_metrics.judges.llm import (
    HEDGE_RULE,
    PROMPT_VERSION,
    LLMJudge,
    LLMJudgeConfig,
    OpenAIBackendConfig,
    build_messages,
    parse_reply,
)

ENTRY_POINT_GROUP = "leakres.judges"


def _alias_factory(**kwargs: Any) -> Judge:
    return AliasJudge(AliasJudgeConfig(**kwargs))


_BUILTIN: dict[str, Callable[..., Judge]] = {
    "alias": _alias_factory,
    "llm": LLMJudge.from_openai,
}
_REGISTERED: dict[str, Callable[..., Judge]] = {}


def register_judge(name: str, factory: Callable[..., Judge]) -> None:
    """Register a judge factory under ``name`` (overrides a plugin of the same name)."""
    _REGISTERED[name] = factory


def _plugins() -> dict[str, Any]:
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def available_judges() -> list[str]:
    """Names accepted by :func:`get_judge`."""
    return sorted({*_BUILTIN, *_REGISTERED, *_plugins()})


def get_judge(name: str, **kwargs: Any) -> Judge:
    """Build the judge registered as ``name`` with ``kwargs``.

    ``get_judge("alias")``; ``get_judge("llm", model="gpt-4o-mini", base_url=..., api_key=...)``.
    """
    if name in _REGISTERED:
        return _REGISTERED[name](**kwargs)
    if name in _BUILTIN:
        return _BUILTIN[name](**kwargs)
    plugins = _plugins()
    if name in plugins:
        return plugins[name].load()(**kwargs)
    known = available_judges()
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"did you mean '{close[0]}'? " if close else ""
    raise UnknownNameError(f"unknown judge '{name}'; {hint}Known: {', '.join(known)}")


__all__ = [
    "ENTRY_POINT_GROUP",
    "HEDGE_RULE",
    "PROMPT_VERSION",
    "AliasJudge",
    "AliasJudgeConfig",
    "Judge",
    "LLMJudge",
    "LLMJudgeConfig",
    "OpenAIBackendConfig",
    "agreement",
    "available_judges",
    "build_messages",
    "get_judge",
    "judge_any",
    "parse_reply",
    "register_judge",
]
