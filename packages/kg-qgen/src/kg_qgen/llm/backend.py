"""The LLM backend interface shared by generation, text extraction and LLM verification.

A backend takes a batch of chat conversations (lists of ``{"role", "content"}`` messages) and
returns one completion string per conversation, in order. Implementations:

* :class:`kg_qgen.llm.openai_backend.OpenAIBackend` - any OpenAI-compatible HTTP endpoint.
* :class:`kg_qgen.llm.transformers_backend.TransformersBackend` - a local Hugging Face model
  (safetensors directory, hub id or ``.gguf`` file), batched greedy decoding.
* :class:`kg_qgen.llm.cache.CachedBackend` - wraps either with an on-disk JSON cache.

Backends are looked up by name in a small registry (``openai``, ``transformers``); third-party
backends register through the entry point group ``leakres.llm_backends`` (value
``module:Class``), loaded lazily.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from kg_qgen.plugins import Registry

__all__ = [
    "ENTRY_POINT_GROUP",
    "LLMBackend",
    "LLMBackendError",
    "Messages",
    "available_backends",
    "complete_or_errors",
    "get_backend",
    "make_backend",
]

Messages = list[dict[str, str]]
ENTRY_POINT_GROUP = "leakres.llm_backends"

# name -> "module:Class" (imported lazily so that neither openai nor torch is needed up front)
BACKENDS: Registry[Callable[..., Any]] = Registry(
    "LLM backend",
    ENTRY_POINT_GROUP,
    {
        "openai": "kg_qgen.llm.openai_backend:OpenAIBackend",
        "transformers": "kg_qgen.llm.transformers_backend:TransformersBackend",
    },
)


class LLMBackendError(RuntimeError):
    """Some completions of a batch failed (after the backend's retries).

    ``results`` holds one entry per prompt: the completion, or None where it failed; ``errors``
    maps the index of each failed prompt to a readable reason. Callers that can use partial
    results (the generator turns failures into rejects) catch this and read both.
    """

    def __init__(
        self,
        message: str,
        results: list[str | None] | None = None,
        errors: dict[int, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.results: list[str | None] = list(results or [])
        self.errors: dict[int, str] = dict(errors or {})


def complete_or_errors(
    backend: LLMBackend, prompts: list[Messages], **kwargs: Any
) -> tuple[list[str | None], dict[int, str]]:
    """Run ``backend.complete_many`` and return (results with None for failures, errors)."""
    if not prompts:
        return [], {}
    try:
        return list(backend.complete_many(prompts, **kwargs)), {}
    except LLMBackendError as err:
        if len(err.results) != len(prompts):  # the backend could not say which ones failed
            return [None] * len(prompts), dict.fromkeys(range(len(prompts)), str(err))
        return err.results, err.errors


@runtime_checkable
class LLMBackend(Protocol):
    """Chat messages in, text out.

    ``backend_id`` and ``model`` identify the backend in cache keys and records; they never
    contain credentials.
    """

    backend_id: str
    model: str

    def complete_many(
        self,
        prompts: list[Messages],
        *,
        temperature: float = 0.0,
        max_tokens: int = 512,
        response_format_json: bool = True,
    ) -> list[str]: ...


def available_backends() -> list[str]:
    return BACKENDS.names()


def get_backend(name: str) -> Callable[..., Any]:
    """The backend class registered under ``name``; unknown names get a did-you-mean error."""
    return BACKENDS.get(name)


def make_backend(name: str, **overrides: Any) -> LLMBackend:
    """Instantiate backend ``name`` with ``overrides`` (e.g. ``base_url``, ``model``)."""
    return get_backend(name)(**overrides)
