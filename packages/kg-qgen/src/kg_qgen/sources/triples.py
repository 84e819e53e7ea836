"""Generic triples files (JSONL or CSV) -> KnowledgeGraph.

Each record (JSONL object or CSV row with a header) needs ``subject``, ``relation`` and ``object``
(labels). Optional: ``subject_id``, ``object_id`` (default: a slug of the label),
``relation_id`` (default: ``relation`` itself when it looks like a Wikidata id such as P27,
otherwise a slug of it), ``relation_label``, ``subject_aliases`` / ``object_aliases`` (a JSON
list, or in CSV a ``|``-separated string).

Relation labels: ``relation_label`` if given; else, for a Wikidata id, the label from
``relations_file`` (see :mod:`kg_qgen.sources.relations`), else kg-qgen's shipped Wikidata label
(:func:`kg_qgen.semantics.relations.shipped_relation_labels`); else, for any other relation, the
``relation`` text. A Wikidata id with no label anywhere keeps the id as its name, and ``build``
turns its questions into ``relation_label`` rejects; with ``strict=True`` it is an error here.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kg_qgen.errors import KgQgenInputError
from kg_qgen.graph import KnowledgeGraph, slugify
from kg_qgen.semantics.relations import shipped_relation_labels
from kg_qgen.sources.relations import WIKIDATA_PID, load_relation_labels
from kg_qgen.textio import iter_utf8_lines, parse_json

__all__ = ["load_triples"]

REQUIRED = ("subject", "relation", "object")


def _records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, record) pairs; line numbers are 1-based physical lines. Read one line at a
    time: a bad line fails before the rest of the file is read."""
    if path.suffix.lower() in (".csv", ".tsv"):
        yield from _csv_records(path)
        return
    for n, line in iter_utf8_lines(path, "triples file"):
        if not line.strip():
            continue
        rec = parse_json(line, str(path), line=n)
        if not isinstance(rec, dict):
            raise KgQgenInputError("expected a JSON object", path=str(path), line=n)
        yield n, rec


def _csv_records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    lines = (text for _, text in iter_utf8_lines(path, "triples file"))
    reader = csv.DictReader(lines, delimiter="\t" if path.suffix.lower() == ".tsv" else ",")
    try:
        if reader.fieldnames is None:
            return
        missing = [f for f in REQUIRED if f not in reader.fieldnames]
        if missing:
            raise KgQgenInputError(
                "header lacks a column", path=str(path), line=1, field=missing[0]
            )
        for row in reader:
            yield reader.line_num, row
    except csv.Error as err:
        raise KgQgenInputError(
            f"malformed CSV: {err}", path=str(path), line=reader.line_num or 1
        ) from err


class _Labels:
    """The label each id was first given, and on which line: one id under two labels (a typo,
    or two entities whose slugs collide) would merge their facts under the first label, so it is
    refused, naming both lines. Labels differing only in case or spacing are the same label."""

    def __init__(self, path: Path, kind: str) -> None:
        self.path, self.kind, self.seen = path, kind, {}

    def check(self, id_: str, label: str, line: int, field: str) -> None:
        first = self.seen.setdefault(id_, (label, line))
        if " ".join(first[0].casefold().split()) != " ".join(label.casefold().split()):
            raise KgQgenInputError(
                f"{self.kind} id {id_!r} is {first[0]!r} on line {first[1]} and {label!r} on "
                f"line {line}; one id, one label (give distinct ids, or the same label)",
                path=str(self.path),
                line=line,
                field=field,
            )


def _optional_str(rec: dict[str, Any], key: str, path: Path, line: int) -> str:
    """An optional text field: "" when absent or empty, an error when not a string."""
    value = rec.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise KgQgenInputError("must be a string", path=str(path), line=line, field=key)
    return value.strip()


def _aliases(value: Any, path: Path, line: int, field: str) -> list[str]:
    if value in (None, ""):
        return []
    if isinstance(value, str):
        return [a.strip() for a in value.split("|") if a.strip()]
    if isinstance(value, list) and all(isinstance(a, str) for a in value):
        return value
    raise KgQgenInputError("must be a list of strings", path=str(path), line=line, field=field)


def load_triples(
    path: str | Path,
    *,
    relations_file: str | Path | None = None,
    strict: bool = False,
    source: str | None = None,
) -> KnowledgeGraph:
    path = Path(path)
    labels = load_relation_labels(relations_file) if relations_file else {}
    source = source or path.name
    kg = KnowledgeGraph()
    entities, relations = _Labels(path, "entity"), _Labels(path, "relation")
    for line, rec in _records(path):
        for key in REQUIRED:
            value = rec.get(key)
            if not isinstance(value, str) or not value.strip():
                raise KgQgenInputError("missing or empty", path=str(path), line=line, field=key)
        s_label, r_text, o_label = (rec[k].strip() for k in REQUIRED)
        rel_id = _optional_str(rec, "relation_id", path, line) or (
            r_text if WIKIDATA_PID.match(r_text) else slugify(r_text)
        )
        rel_label = _optional_str(rec, "relation_label", path, line)
        if not rel_label and WIKIDATA_PID.match(rel_id):
            rel_label = labels.get(rel_id) or shipped_relation_labels().get(rel_id, "")
            if not rel_label and strict:
                where = f"{relations_file} nor " if relations_file else ""
                raise KgQgenInputError(
                    f"relation {rel_id!r} has no label (not in {where}kg-qgen's shipped "
                    "Wikidata labels); add a relation_label or use --relations-file",
                    path=str(path),
                    line=line,
                    field="relation_id" if rec.get("relation_id") else "relation",
                )
            rel_label = rel_label or rel_id  # no label: its questions become rejects
        elif not rel_label:
            rel_label = r_text
        s_id = _optional_str(rec, "subject_id", path, line) or slugify(s_label)
        o_id = _optional_str(rec, "object_id", path, line) or slugify(o_label)
        relations.check(rel_id, rel_label, line, "relation_label")
        entities.check(s_id, s_label, line, "subject")
        entities.check(o_id, o_label, line, "object")
        kg.add_relation(rel_id, rel_label)
        kg.add_entity(
            s_id, s_label, _aliases(rec.get("subject_aliases"), path, line, "subject_aliases")
        )
        kg.add_entity(
            o_id, o_label, _aliases(rec.get("object_aliases"), path, line, "object_aliases")
        )
        kg.add_fact(s_id, rel_id, o_id, source=f"{source}:{line}")
    if len(kg) == 0:
        raise KgQgenInputError("no triples (empty file)", path=str(path))
    return kg
