"""Registry of knowledge sources by name.

Built-in sources are referenced by module path and imported lazily, so a source with heavy
optional dependencies (``text`` uses an LLM) costs nothing until used. Third-party sources
register through the entry point group ``leakres.kg_sources`` (value ``module:function``).
Names are case-insensitive; built-ins come before plugins (:mod:`kg_qgen.plugins`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kg_qgen.graph import KnowledgeGraph
from kg_qgen.plugins import Registry

__all__ = ["SOURCES", "available_sources", "get_source", "load_source", "register_source"]

ENTRY_POINT_GROUP = "leakres.kg_sources"

# name -> "module:function" (lazy) or a callable (registered at runtime)
SOURCES: Registry[Callable[..., KnowledgeGraph]] = Registry(
    "source",
    ENTRY_POINT_GROUP,
    {
        "builtin": "kg_qgen.sources.builtin:load_builtin",
        "mquake": "kg_qgen.sources.mquake:load_mquake",
        "triples": "kg_qgen.sources.triples:load_triples",
        "text": "kg_qgen.sources.text:load_text",
        "fictional": "kg_qgen.sources.fictional:load_fictional",
    },
)


def register_source(name: str, loader: str | Callable[..., KnowledgeGraph]) -> None:
    """Register a loader ``(path=None, **kw) -> KnowledgeGraph`` under ``name``."""
    SOURCES.register(name, loader)


def available_sources() -> list[str]:
    return SOURCES.names()


def get_source(name: str, **overrides: Any) -> Callable[..., KnowledgeGraph]:
    """The loader for ``name`` (with ``overrides`` bound as keyword options, if any); unknown
    names raise :class:`~kg_qgen.errors.UnknownNameError` with a did-you-mean hint."""
    loader = SOURCES.get(name)
    return functools.partial(loader, **overrides) if overrides else loader


def load_source(name: str, path: str | Path | None = None, **kw: Any) -> KnowledgeGraph:
    """Load source ``name`` from ``path`` (optional for ``builtin``) into a KnowledgeGraph."""
    loader = get_source(name)
    if path is None:
        return loader(**kw)
    return loader(path, **kw)
