"""Wikidata relation id -> English label files.

Accepted formats: the SPARQL JSON results format (``{"results": {"bindings": [{"property":
{"value": ".../P27"}, "propertyLabel": {"value": "country of citizenship"}}, ...]}}``) or a
plain ``{"P27": "country of citizenship", ...}`` object.
"""

from __future__ import annotations

import re
from pathlib import Path

from kg_qgen.errors import KgQgenInputError
from kg_qgen.textio import parse_json, read_utf8

__all__ = ["WIKIDATA_PID", "load_relation_labels"]

WIKIDATA_PID = re.compile(r"^P\d+$")


def load_relation_labels(path: str | Path) -> dict[str, str]:
    path = Path(path)
    data = parse_json(read_utf8(path, "relation label file"), str(path))
    if isinstance(data, dict) and "results" in data:
        labels: dict[str, str] = {}
        results = data["results"]
        bindings = results.get("bindings") if isinstance(results, dict) else None
        if not isinstance(bindings, list):
            raise KgQgenInputError("expected a list", path=str(path), field="results.bindings")
        for i, b in enumerate(bindings):
            try:
                pid = b["property"]["value"].rsplit("/", 1)[-1]
                label = b["propertyLabel"]["value"]
                if not isinstance(label, str):
                    raise TypeError("label is not a string")
            except (KeyError, TypeError, AttributeError) as err:
                raise KgQgenInputError(
                    f"binding {i} lacks {err}", path=str(path), field="results.bindings"
                ) from err
            labels[pid] = label
        return labels
    if isinstance(data, dict) and all(isinstance(v, str) for v in data.values()):
        return dict(data)
    raise KgQgenInputError("expected SPARQL results JSON or an {id: label} object", path=str(path))
