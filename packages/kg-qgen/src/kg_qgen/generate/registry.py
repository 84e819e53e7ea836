"""Question generators by name.

``template`` is built in. Other generators register themselves with :func:`register_generator`
(the ``kg_qgen.llm`` package does so on import, and is imported lazily the first time an unknown
name is asked for), or through the entry point group ``leakres.kg_generators`` whose value is a
factory ``module:callable`` taking ``seed=`` and keyword options.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable
from typing import Any

from kg_qgen.generate.base import QuestionGenerator
from kg_qgen.plugins import available, resolve

__all__ = ["available_generators", "get_generator", "register_generator"]

ENTRY_POINT_GROUP = "leakres.kg_generators"

_GENERATORS: dict[str, str | Callable[..., QuestionGenerator]] = {
    "template": "kg_qgen.generate.template:TemplateGenerator",
}


def register_generator(name: str, factory: str | Callable[..., QuestionGenerator]) -> None:
    _GENERATORS[name] = factory


def available_generators() -> list[str]:
    return available(_GENERATORS, ENTRY_POINT_GROUP)


def get_generator(name: str, seed: int = 0, **options: Any) -> QuestionGenerator:
    """Instantiate generator ``name`` with ``seed`` and options."""
    if name not in available_generators():
        # the optional LLM package registers its generators on import
        with contextlib.suppress(ImportError):
            importlib.import_module("kg_qgen.llm")
    return resolve("generator", name, _GENERATORS, ENTRY_POINT_GROUP)(seed=seed, **options)
