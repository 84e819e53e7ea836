"""LLM features of kg-qgen: question generation, raw-text extraction and LLM verification.

The ``llm`` question generator is a lazy built-in of :mod:`kg_qgen.generate.registry`
(:func:`kg_qgen.llm.generator.make_llm_generator`), so neither package imports the other at
import time; neither ``openai`` nor ``torch`` is imported until a backend is created.
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
from kg_qgen.llm.generator import LLMQuestionGenerator, make_llm_generator
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
    "make_llm_generator",
]
