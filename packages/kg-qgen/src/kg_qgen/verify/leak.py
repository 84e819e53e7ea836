"""Leak rule: a question never names the masked bridge or the answer, nor gives them away.

Matching is whole-word and case-, accent- and punctuation-insensitive (see
:mod:`kg_qgen.textnorm`). A question leaks when it contains:

1. the bridge's label or an alias;
2. a demonym of the bridge ("Argentine" when the bridge is Argentina; the shipped table
   :mod:`kg_qgen.semantics.demonyms` covers countries and continents);
3. any word of four letters or more of the bridge's label (function words aside), e.g.
   "Messerschmitt" in "Messerschmitt AG" when the bridge is Willy Messerschmitt;
4. the answer's label or an alias, or a demonym of the answer. The one exception is DS: its answer
   is allowed to appear exactly as one of >= 3 listed options (the record's ``options``); each
   option is cut out of the text once before the answer is searched;
5. a name that gives the answer away (every type with an entity answer, DS included): a word of
   four letters or more of the answer's label ("Bank of Egypt" when the answer is Egypt), or the
   label of an entity next to the answer in the graph that the question does not use as a premise
   ("Cairo" in "Cairo American College" when the answer is Egypt, whose capital is Cairo).
"""

from __future__ import annotations

from collections.abc import Sequence

from kg_qgen.checking import Reject
from kg_qgen.graph import KnowledgeGraph
from kg_qgen.semantics.demonyms import demonyms_for
from kg_qgen.textnorm import contains_phrase, long_tokens, normalize

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
    return [f for f in dict.fromkeys(str(x) for x in forms) if normalize(f)]


def _cut_once(text: str, phrase: str) -> str:
    padded, needle = f" {text} ", f" {phrase} "
    i = padded.find(needle)
    if i < 0:
        return text
    return (padded[:i] + " " + padded[i + len(needle) :]).strip()


def _names(text: str, forms: list[str], what: str, noun: str = "", where: str = "") -> str | None:
    """Why the normalized question ``text`` names the ``what`` ("bridge" or "answer") through
    one of its surface ``forms``: a form, a demonym of a form, or a long word of the first form;
    None when it does not. ``noun`` follows ``what`` in the form message (" entity"), ``where``
    ends the form and demonym messages (" outside the option list")."""
    for form in forms:
        if contains_phrase(text, normalize(form)):
            return f"question contains the {what}{noun} {form!r}{where}"
    for dem in demonyms_for(forms):
        if contains_phrase(text, normalize(dem)):
            return f"question contains {dem!r}, a demonym of the {what} {forms[0]!r}{where}"
    if forms:
        shared = sorted(long_tokens(normalize(forms[0])) & set(text.split()))
        if shared:
            return f"question shares the word {shared[0]!r} with the {what} {forms[0]!r}"
    return None


def find_leak(record: dict, graph: KnowledgeGraph | None = None) -> str | None:
    """Why the record leaks, or None."""
    text = normalize(record.get("question", ""))
    named = _names(text, _surface_forms(record, graph, "bridge"), "bridge", " entity")
    if named is not None:
        return named
    answer_text = text
    if record.get("type") == "DS":
        options = record.get("options") or []
        if len(options) < 3:
            return f"DS question has {len(options)} options (< 3)"
        for opt in options:
            answer_text = _cut_once(answer_text, normalize(opt))
    if record.get("type") == "MT":
        return None  # both options are named alike (conditional + ask): verify.mt_text checks
    where = " outside the option list" if record.get("type") == "DS" else ""
    named = _names(answer_text, _surface_forms(record, graph, "answer"), "answer", "", where)
    if named is not None:
        return named
    if graph is not None:
        return _neighbour_leak(record, graph, answer_text)
    return None


def _neighbour_leak(record: dict, graph: KnowledgeGraph, text: str) -> str | None:
    """An entity next to the answer, not a premise entity, named in the question (rule 5)."""
    from kg_qgen.match.index import GraphIndex

    aid = record.get("answer_id")
    if not aid or not graph.has_entity(aid):
        return None
    idx = GraphIndex.of(graph)
    used = {
        str(x) for p in record.get("premise_ids") or [] if isinstance(p, dict) for x in p.values()
    }
    option_ids = record.get("option_ids")
    # a malformed option_ids (not a list) is the logic check's to report, not a crash here
    used |= {str(o) for o in option_ids} if isinstance(option_ids, (list, tuple)) else set()
    near = {f.object for f in idx.by_subject.get(aid, ())}
    for rel_obj in idx.facts_into(aid):
        near.add(rel_obj)
    for e in sorted(near - used - {aid}):
        lab = idx.norm_label(e)
        if len(lab) >= 4 and contains_phrase(text, lab):
            return f"question names {graph.label(e)!r}, which is next to the answer in the graph"
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
