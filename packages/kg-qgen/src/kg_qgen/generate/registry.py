"""Question generators by name.

``template`` and ``llm`` are built in, both referenced lazily (``llm`` is
:func:`kg_qgen.llm_factory.make_llm_generator`, the optional :mod:`kg_qgen.llm` package's
generator held to verify's per-question rules, imported only when asked for, so this module
imports nothing from it). More generators register with :func:`register_generator` or through
the entry point group ``leakres.kg_generators`` whose value is a factory ``module:callable``
taking ``seed=`` and keyword options. Names are case-insensitive; built-ins come before plugins.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kg_qgen.generate.base import QuestionGenerator
from kg_qgen.plugins import Registry

__all__ = ["GENERATORS", "available_generators", "get_generator", "register_generator"]

ENTRY_POINT_GROUP = "leakres.kg_generators"

GENERATORS: Registry[Callable[..., QuestionGenerator]] = Registry(
    "generator",
    ENTRY_POINT_GROUP,
    {
        "template": "kg_qgen.generate.template:TemplateGenerator",
        "llm": "kg_qgen.llm_factory:make_llm_generator",
    },
)


def register_generator(name: str, factory: str | Callable[..., QuestionGenerator]) -> None:
    GENERATORS.register(name, factory)


def available_generators() -> list[str]:
    return GENERATORS.names()


def get_generator(name: str, seed: int = 0, **overrides: Any) -> QuestionGenerator:
    """Instantiate generator ``name`` with ``seed`` and options (its ``config_cls`` fields)."""
    return GENERATORS.get(name)(seed=seed, **overrides)
