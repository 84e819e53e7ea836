"""LLM features of kg-qgen: question generation, raw-text extraction and LLM verification.

Importing this package registers the ``llm`` question generator with
:mod:`kg_qgen.generate.registry`; neither ``openai`` nor ``torch`` is imported until a backend is
created.
"""

from __future__ import annotations

from typing import Any

from kg_qgen.generate.registry import register_generator
from kg_qgen.llm.backend import (
    LLMBackend,
    LLMBackendError,
    available_backends,
    get_backend,
    make_backend,
)
from kg_qgen.llm.cache import CachedBackend
from kg_qgen.llm.generator import LLMQuestionGenerator
from kg_qgen.llm.prompts import PROMPT_VERSION

__all__ = [
    "PROMPT_VERSION",
    "CachedBackend",
    "LLMBackend",
    "LLMBackendError",
    "LLMQuestionGenerator",
    "available_backends",
    "get_backend",
    "make_backend",
]


def _llm_generator(seed: int = 0, backend: LLMBackend | None = None, **options: Any):
    """Registry factory: ``get_generator("llm", seed=0, backend=...)``."""
    if backend is None:
        raise ValueError(
            "the 'llm' generator needs backend=<LLMBackend> "
            "(on the command line: --llm-backend/--llm-model with --llm-generate)"
        )
    return LLMQuestionGenerator(backend=backend, seed=seed, **options)


register_generator("llm", _llm_generator)
