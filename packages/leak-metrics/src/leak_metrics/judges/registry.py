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


_alias_factory.judge_class = AliasJudge  # type: ignore[attr-defined]  # read by judge_class()


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


def judge_class(name: str) -> type[Judge] | None:
    """The :class:`Judge` subclass ``name`` builds, without building it (an LLM judge would need its
    endpoint): the registered class itself, the class of a registered classmethod
    (``LLMJudge.from_openai``), or a factory function's ``judge_class`` attribute; None when the
    factory does not say. Callers ask it ``needs_endpoint`` and ``api_key_from_env()``."""
    factory = JUDGES.get(name)
    owner = factory if isinstance(factory, type) else getattr(factory, "__self__", None)
    if not isinstance(owner, type):
        owner = getattr(factory, "judge_class", None)
    return owner if isinstance(owner, type) and issubclass(owner, Judge) else None


def judge_needs_endpoint(name: str) -> bool:
    """Whether the judge ``name`` asks a model over the network (``Judge.needs_endpoint``)."""
    cls = judge_class(name)
    return bool(cls is not None and cls.needs_endpoint)
