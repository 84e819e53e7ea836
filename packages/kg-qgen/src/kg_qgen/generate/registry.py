"""Question generators by name.

``template`` and ``llm`` are built in, both referenced lazily (``llm`` lives in the optional
:mod:`kg_qgen.llm` package, imported only when asked for by :func:`make_llm_generator`, which
hands it the per-question rules of :mod:`kg_qgen.verify`: this is where the two meet). More generators register with :func:`register_generator` or through the entry point group
``leakres.kg_generators`` whose value is a factory ``module:callable`` taking ``seed=`` and
keyword options. Names are case-insensitive; built-ins come before plugins.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kg_qgen.generate.base import QuestionGenerator
from kg_qgen.plugins import Registry

__all__ = [
    "GENERATORS",
    "available_generators",
    "get_generator",
    "make_llm_generator",
    "register_generator",
]

ENTRY_POINT_GROUP = "leakres.kg_generators"


def make_llm_generator(seed: int = 0, backend: Any = None, **options: Any) -> QuestionGenerator:
    """Registry factory: ``get_generator("llm", seed=0, backend=...)``, an
    :class:`~kg_qgen.llm.generator.LLMQuestionGenerator` held to ``kg-qgen verify``'s
    per-question rules (:func:`~kg_qgen.verify.deterministic.question_rules`)."""
    if backend is None:
        raise ValueError(
            "the 'llm' generator needs backend=<LLMBackend> "
            "(on the command line: --llm-backend/--llm-model with --llm-generate)"
        )
    from kg_qgen.llm.generator import LLMQuestionGenerator
    from kg_qgen.verify.deterministic import question_rules

    return LLMQuestionGenerator(backend=backend, rules=question_rules(), seed=seed, **options)


GENERATORS: Registry[Callable[..., QuestionGenerator]] = Registry(
    "generator",
    ENTRY_POINT_GROUP,
    {
        "template": "kg_qgen.generate.template:TemplateGenerator",
        "llm": make_llm_generator,
    },
)


def register_generator(name: str, factory: str | Callable[..., QuestionGenerator]) -> None:
    GENERATORS.register(name, factory)


def available_generators() -> list[str]:
    return GENERATORS.names()


def get_generator(name: str, seed: int = 0, **overrides: Any) -> QuestionGenerator:
    """Instantiate generator ``name`` with ``seed`` and options (its ``config_cls`` fields)."""
    return GENERATORS.get(name)(seed=seed, **overrides)
