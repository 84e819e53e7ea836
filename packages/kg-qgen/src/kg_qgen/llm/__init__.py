"""LLM features of kg-qgen: question generation, raw-text extraction and LLM verification.

The ``llm`` question generator is a lazy built-in of :mod:`kg_qgen.generate.registry`
(:func:`kg_qgen.llm_factory.make_llm_generator`, which hands it ``kg-qgen verify``'s
per-question rules), so neither package imports the other at import time; neither ``openai``
nor ``torch`` is imported until a backend is created. This package may import
:mod:`kg_qgen.checking` (the check interface), the graph, matches, records and wording; it never
imports :mod:`kg_qgen.verify`, and ``verify`` never imports it (the LLM checks,
:mod:`kg_qgen.llm.checks`, live here).
"""

from __future__ import annotations

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
