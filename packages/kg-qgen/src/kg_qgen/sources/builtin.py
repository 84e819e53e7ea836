"""The small built-in knowledge base shipped with the package (``kg_qgen/data/builtin_kb.json``).

File format::

    {"entities": {id: {"label": str, "aliases": [str, ...]}},
     "relations": {id: {"label": str}},
     "triples": [[subject_id, relation_id, object_id], ...]}
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from kg_qgen.errors import KgQgenInputError
from kg_qgen.graph import KnowledgeGraph

__all__ = ["graph_from_kb_dict", "load_builtin", "load_kb_json"]

BUILTIN_NAME = "builtin_kb.json"


def graph_from_kb_dict(data: Any, *, path: str, source: str = "builtin") -> KnowledgeGraph:
    """Build a graph from the KB dict format, validating every field."""
    if not isinstance(data, dict):
        raise KgQgenInputError("expected a JSON object", path=path)
    for key in ("entities", "relations", "triples"):
        if key not in data:
            raise KgQgenInputError("missing top-level key", path=path, field=key)
    kg = KnowledgeGraph()
    for rid, rel in data["relations"].items():
        if not isinstance(rel, dict) or not rel.get("label"):
            raise KgQgenInputError("relation needs a 'label'", path=path, field=f"relations.{rid}")
        kg.add_relation(rid, rel["label"])
    for eid, ent in data["entities"].items():
        if not isinstance(ent, dict) or not ent.get("label"):
            raise KgQgenInputError("entity needs a 'label'", path=path, field=f"entities.{eid}")
        aliases = ent.get("aliases", [])
        if not isinstance(aliases, list):
            raise KgQgenInputError("must be a list", path=path, field=f"entities.{eid}.aliases")
        kg.add_entity(eid, ent["label"], aliases)
    if not data["triples"]:
        raise KgQgenInputError("no triples", path=path, field="triples")
    for i, triple in enumerate(data["triples"]):
        where = f"triples[{i}]"
        if not (isinstance(triple, list | tuple) and len(triple) == 3):
            raise KgQgenInputError("must be [subject, relation, object]", path=path, field=where)
        s, r, o = triple
        if s not in data["entities"]:
            raise KgQgenInputError(f"unknown subject id {s!r}", path=path, field=where)
        if o not in data["entities"]:
            raise KgQgenInputError(f"unknown object id {o!r}", path=path, field=where)
        if r not in data["relations"]:
            raise KgQgenInputError(f"unknown relation id {r!r}", path=path, field=where)
        kg.add_fact(s, r, o, source=f"{source}:{i}")
    return kg


def load_kb_json(path: str | Path, source: str | None = None) -> KnowledgeGraph:
    """Load a KB JSON file in the builtin format from disk."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as err:
        raise KgQgenInputError("file not found", path=str(path)) from err
    except json.JSONDecodeError as err:
        raise KgQgenInputError(f"invalid JSON: {err.msg}", path=str(path), line=err.lineno) from err
    return graph_from_kb_dict(data, path=str(path), source=source or path.stem)


def load_builtin(path: str | Path | None = None) -> KnowledgeGraph:
    """Load the packaged KB, or a file in the same format when ``path`` is given."""
    if path is not None:
        return load_kb_json(path)
    ref = resources.files("kg_qgen") / "data" / BUILTIN_NAME
    if not ref.is_file():
        raise KgQgenInputError("the packaged built-in KB is missing", path=str(ref))
    data = json.loads(ref.read_text(encoding="utf-8"))
    return graph_from_kb_dict(data, path=str(ref), source="builtin")
