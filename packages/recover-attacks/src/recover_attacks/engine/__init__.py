"""Generation engines: one decoding protocol, an in-process engine and an OpenAI-compatible one.

- :class:`DecodingConfig`: how responses are decoded (budget, greedy/sampling, n, seed, stops,
  the injected answer-end rule; :func:`answer_end_rule` injects it into every ``generate`` call).
- :class:`LocalEngine`: continuous batching over a transformers model in this process.
- :class:`OpenAIEngine`: the completions endpoint of any OpenAI-compatible server.
- :class:`ServerProcess`: start such a server from a command template, wait for health, stop it.
- :func:`get_engine` / :func:`available_engines`: the engines by name (``local``, ``openai``).
"""

from __future__ import annotations

import difflib
import importlib
from typing import Any

from .base import Engine, EngineStats, GenerateFn
from .config import DecodingConfig, request_seed
from .errors import EngineError, ServerError, UnknownEngineError
from .local import LocalEngine
from .stops import AnswerEnd, answer_end_rule

_BUILTIN: dict[str, str] = {
    "local": "recover_attacks.engine.local:LocalEngine",
    "openai": "recover_attacks.engine.openai_engine:OpenAIEngine",
}


def available_engines() -> list[str]:
    return list(_BUILTIN)


def get_engine_class(name: str) -> type[Engine]:
    key = name.lower()
    if key not in _BUILTIN:
        close = difflib.get_close_matches(key, list(_BUILTIN), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise UnknownEngineError(f"unknown engine {name!r}{hint} Known: {', '.join(_BUILTIN)}")
    module, cls = _BUILTIN[key].split(":")
    return getattr(importlib.import_module(module), cls)


def get_engine(name: str, *args: Any, **kwargs: Any) -> Engine:
    """``get_engine("local", model, tokenizer)`` or ``get_engine("openai", base_url=..., ...)``."""
    return get_engine_class(name)(*args, **kwargs)


def __getattr__(name: str) -> Any:  # the openai client is an optional extra: import on use
    if name == "OpenAIEngine":
        from .openai_engine import OpenAIEngine

        return OpenAIEngine
    if name == "ServerProcess":
        from .server import ServerProcess

        return ServerProcess
    raise AttributeError(name)


__all__ = [
    "AnswerEnd",
    "DecodingConfig",
    "Engine",
    "EngineError",
    "EngineStats",
    "GenerateFn",
    "LocalEngine",
    "OpenAIEngine",
    "ServerError",
    "ServerProcess",
    "UnknownEngineError",
    "answer_end_rule",
    "available_engines",
    "get_engine",
    "get_engine_class",
    "request_seed",
]
