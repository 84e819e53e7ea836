"""Lexical leak rule: a question never names the masked bridge or the answer.

Matching is whole-word and case-, accent- and punctuation-insensitive (see
:mod:`kg_qgen.textnorm`), over the label and every alias. The one exception is DS: its answer is
allowed to appear exactly as one of >= 3 listed options (the record's ``options``); each option
is cut out of the text once before the answer is searched.
"""

from __future__ import annotations

from collections.abc import Sequence

from kg_qgen.graph import KnowledgeGraph
from kg_qgen.textnorm import contains_phrase, normalize
from kg_qgen.verify.base import Reject

__all__ = ["LeakCheck", "find_leak"]


def _surface_forms(record: dict, graph: KnowledgeGraph | None, key: str) -> list[str]:
    """Label and aliases of the bridge (key="bridge") or the answer (key="answer")."""
    forms: list[str] = []
    if key == "bridge":
        if record.get("bridge"):
            forms.append(record["bridge"])
        bid = record.get("bridge_id")
        if graph is not None and bid and graph.has_entity(bid):
            forms += [graph.label(bid), *graph.aliases(bid)]
    else:
        forms += [record.get("answer", ""), *record.get("answer_aliases", [])]
        aid = record.get("answer_id")
        if graph is not None and aid and graph.has_entity(aid):
            forms += [graph.label(aid), *graph.aliases(aid)]
    return [f for f in dict.fromkeys(forms) if normalize(f)]


def _cut_once(text: str, phrase: str) -> str:
    padded, needle = f" {text} ", f" {phrase} "
    i = padded.find(needle)
    if i < 0:
        return text
    return (padded[:i] + " " + padded[i + len(needle) :]).strip()


def find_leak(record: dict, graph: KnowledgeGraph | None = None) -> str | None:
    """Why the record leaks, or None."""
    text = normalize(record.get("question", ""))
    for form in _surface_forms(record, graph, "bridge"):
        if contains_phrase(text, normalize(form)):
            return f"question contains the bridge entity {form!r}"
    answer_text = text
    if record.get("type") == "DS":
        options = record.get("options") or []
        if len(options) < 3:
            return f"DS question has {len(options)} options (< 3)"
        for opt in options:
            answer_text = _cut_once(answer_text, normalize(opt))
    for form in _surface_forms(record, graph, "answer"):
        if contains_phrase(answer_text, normalize(form)):
            where = " outside the option list" if record.get("type") == "DS" else ""
            return f"question contains the answer {form!r}{where}"
    return None


class LeakCheck:
    name = "leak"

    def __call__(self, records: Sequence[dict], graph: KnowledgeGraph) -> list[Reject]:
        out = []
        for r in records:
            why = find_leak(r, graph)
            if why:
                out.append(Reject(r, self.name, why))
        return out
