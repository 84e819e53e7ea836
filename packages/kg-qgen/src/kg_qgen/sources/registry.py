"""Registry of knowledge sources by name.

Built-in sources are referenced by module path and imported lazily, so a source with heavy
optional dependencies (``text`` uses an LLM) costs nothing until used. Third-party sources
register through the entry point group ``leakres.kg_sources`` (value ``module:function``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from kg_qgen.graph import KnowledgeGraph
from kg_qgen.plugins import available, resolve

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


def available_sources() -> list[str]:
    return available(_SOURCES, ENTRY_POINT_GROUP)


def get_source(name: str) -> Callable[..., KnowledgeGraph]:
    """The loader for ``name``; unknown names get a did-you-mean error."""
    return resolve("source", name, _SOURCES, ENTRY_POINT_GROUP)


def load_source(name: str, path: str | Path | None = None, **kw: Any) -> KnowledgeGraph:
    """Load source ``name`` from ``path`` (optional for ``builtin``) into a KnowledgeGraph."""
    loader = get_source(name)
    if path is None:
        return loader(**kw)
    return loader(path, **kw)
