"""The judge registry: built-in ``alias`` and ``llm``, plus plugins from entry points
``leakres.judges`` (:mod:`leak_metrics.plugins`). A module of its own so that a judge module can
look a judge up (``labelled``) without importing the package's ``__init__``, which imports it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from leak_metrics.judges.alias import AliasJudge, AliasJudgeConfig
from leak_metrics.judges.base import Judge
from leak_metrics.judges.llm import LLMJudge
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
