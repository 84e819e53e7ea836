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
from kg_qgen.textio import parse_json, read_utf8

__all__ = ["graph_from_kb_dict", "load_builtin", "load_kb_json"]

BUILTIN_NAME = "builtin_kb.json"


def graph_from_kb_dict(data: Any, *, path: str, source: str = "builtin") -> KnowledgeGraph:
    """Build a graph from the KB dict format, validating every field."""
    if not isinstance(data, dict):
        raise KgQgenInputError("expected a JSON object", path=path)
    for key, kind in (("entities", dict), ("relations", dict), ("triples", list)):
        if key not in data:
            raise KgQgenInputError("missing top-level key", path=path, field=key)
        if not isinstance(data[key], kind):
            what = "a JSON object" if kind is dict else "a list"
            raise KgQgenInputError(f"must be {what}", path=path, field=key)
    kg = KnowledgeGraph()
    for rid, rel in data["relations"].items():
        if not rid:
            raise KgQgenInputError("empty relation id", path=path, field="relations")
        if not isinstance(rel, dict) or not isinstance(rel.get("label"), str) or not rel["label"]:
            raise KgQgenInputError(
                "relation needs a 'label'", path=path, field=f"relations[{rid!r}]"
            )
        kg.add_relation(rid, rel["label"])
    for eid, ent in data["entities"].items():
        if not eid:
            raise KgQgenInputError("empty entity id", path=path, field="entities")
        if not isinstance(ent, dict) or not isinstance(ent.get("label"), str) or not ent["label"]:
            raise KgQgenInputError("entity needs a 'label'", path=path, field=f"entities[{eid!r}]")
        aliases = ent.get("aliases", [])
        if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
            raise KgQgenInputError("must be a list", path=path, field=f"entities[{eid!r}].aliases")
        kg.add_entity(eid, ent["label"], aliases)
    if not data["triples"]:
        raise KgQgenInputError("no triples", path=path, field="triples")
    for i, triple in enumerate(data["triples"]):
        where = f"triples[{i}]"
        if not (isinstance(triple, list | tuple) and len(triple) == 3):
            raise KgQgenInputError("must be [subject, relation, object]", path=path, field=where)
        s, r, o = triple
        if not all(isinstance(x, str) for x in triple):
            raise KgQgenInputError("ids must be strings", path=path, field=where)
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
    data = parse_json(read_utf8(path, "KB file"), str(path))
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
