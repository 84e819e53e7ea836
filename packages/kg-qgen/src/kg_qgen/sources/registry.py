"""Registry of knowledge sources by name.

Built-in sources are referenced by module path and imported lazily, so a source with heavy
optional dependencies (``text`` uses an LLM) costs nothing until used. Third-party sources
register through the entry point group ``leakres.kg_sources`` (value ``module:function``).
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from kg_qgen.graph import KnowledgeGraph

__all__ = ["available_sources", "get_source", "load_source", "register_source"]

ENTRY_POINT_GROUP = "leakres.kg_sources"

# name -> "module:function" (lazy) or a callable (registered at runtime)
_SOURCES: dict[str, str | Callable[..., KnowledgeGraph]] = {
    "builtin": "kg_qgen.sources.builtin:load_builtin",
    "mquake": "kg_qgen.sources.mquake:load_mquake",
    "triples": "kg_qgen.sources.triples:load_triples",
    "text": "kg_qgen.sources.text:load_text",
}


def register_source(name: str, loader: str | Callable[..., KnowledgeGraph]) -> None:
    """Register a loader ``(path=None, **kw) -> KnowledgeGraph`` under ``name``."""
    _SOURCES[name] = loader


def _entry_point_sources() -> dict[str, str]:
    return {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}


def available_sources() -> list[str]:
    return sorted(set(_SOURCES) | set(_entry_point_sources()))


def get_source(name: str) -> Callable[..., KnowledgeGraph]:
    """The loader for ``name``; unknown names get a did-you-mean error."""
    loader = _SOURCES.get(name) or _entry_point_sources().get(name)
    if loader is None:
        known = available_sources()
        close = difflib.get_close_matches(name, known, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        raise KeyError(f"unknown source '{name}'{hint} Known: {', '.join(known)}")
    if callable(loader):
        return loader
    module, _, attr = loader.partition(":")
    return getattr(importlib.import_module(module), attr)


def load_source(name: str, path: str | Path | None = None, **kw: Any) -> KnowledgeGraph:
    """Load source ``name`` from ``path`` (optional for ``builtin``) into a KnowledgeGraph."""
    loader = get_source(name)
    if path is None:
        return loader(**kw)
    return loader(path, **kw)
