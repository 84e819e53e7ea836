"""Question generators by name.

``template`` is built in. Other generators register themselves with :func:`register_generator`
(the ``kg_qgen.llm`` package does so on import, and is imported lazily the first time an unknown
name is asked for), or through the entry point group ``leakres.kg_generators`` whose value is a
factory ``module:callable`` taking ``seed=`` and keyword options.
"""

from __future__ import annotations

import contextlib
import difflib
import importlib
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

from kg_qgen.generate.base import QuestionGenerator

__all__ = ["available_generators", "get_generator", "register_generator"]

ENTRY_POINT_GROUP = "leakres.kg_generators"

_GENERATORS: dict[str, str | Callable[..., QuestionGenerator]] = {
    "template": "kg_qgen.generate.template:TemplateGenerator",
}


def register_generator(name: str, factory: str | Callable[..., QuestionGenerator]) -> None:
    _GENERATORS[name] = factory


def _entry_points() -> dict[str, str]:
    return {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}


def available_generators() -> list[str]:
    return sorted(set(_GENERATORS) | set(_entry_points()))


def get_generator(name: str, seed: int = 0, **options: Any) -> QuestionGenerator:
    """Instantiate generator ``name`` with ``seed`` and options."""
    if name not in _GENERATORS and name not in _entry_points():
        # the optional LLM package registers its generators on import
        with contextlib.suppress(ImportError):
            importlib.import_module("kg_qgen.llm")
    factory = _GENERATORS.get(name) or _entry_points().get(name)
    if factory is None:
        known = available_generators()
        close = difflib.get_close_matches(name, known, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        raise KeyError(f"unknown generator '{name}'{hint} Known: {', '.join(known)}")
    if isinstance(factory, str):
        module, _, attr = factory.partition(":")
        factory = getattr(importlib.import_module(module), attr)
    return factory(seed=seed, **options)
