"""Knowledge sources: each loads into a :class:`kg_qgen.graph.KnowledgeGraph`."""

from kg_qgen.sources.registry import available_sources, get_source, load_source, register_source

__all__ = ["available_sources", "get_source", "load_source", "register_source"]
