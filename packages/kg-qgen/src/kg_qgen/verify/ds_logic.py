"""The DS logic check: one option left, every other one ruled out by a fact of the graph.

Re-derived from the graph with the record's ids (``option_ids``, ``premise_ids``, ``eliminated``
with each entry's ``option_id``, ``fact_ids`` and ``side``), by the rules of
:mod:`kg_qgen.match.ds_clues`:

* >= 3 distinct options, the gold once; the answer is the target's object and the only one for
  (s, r) (:meth:`GraphIndex.is_unique`); every option is an object of r, no distractor is another
  r-object of the subject;
* every option is of the gold's class: one entity class (not "thing") and, where the graph groups
  the r-objects (:func:`~kg_qgen.match.ds_clues.class_relation`), the gold's one value of it;
* the subject's name hints no option (label, long alias, demonym);
* ``eliminated`` lists every option but the gold once, in the premises' order after the target;
  each entry's fact is a fact of the graph about its option, not the target, and rules it out
  alone among the options (:func:`~kg_qgen.match.ds_clues.clue_problem`); its labels are the
  graph's;
* ``options`` are the labels of ``option_ids``, the question lists them in that order and names
  every clue's other entity.
"""

from __future__ import annotations

from typing import Any

from kg_qgen.graph import Fact
from kg_qgen.match.ds_clues import Clue, class_relation, class_value, clue_problem, name_hint
from kg_qgen.match.index import GraphIndex
from kg_qgen.textnorm import contains_phrase, normalize

__all__ = ["ds_problem"]

Ids = tuple[str, str, str]


def _options(idx: GraphIndex, r: dict, s: str, rel: str, gold: str) -> list[str] | str:
    """The option ids, or why they are not a valid DS option set."""
    g = idx.graph
    option_ids = r.get("option_ids")
    if not isinstance(option_ids, (list, tuple)):
        return "option_ids is not a list of entity ids"
    opts = [str(o) for o in option_ids]
    if len(opts) < 3 or len(set(opts)) != len(opts) or opts.count(gold) != 1:
        return "DS needs >= 3 distinct option ids with the gold exactly once"
    objects, own = set(idx.relation_objects(rel)), set(idx.objects(s, rel))
    for o in opts:
        if not g.has_entity(o) or o not in objects:
            return f"option {o!r} is not an object of the relation"
        if o != gold and o in own:
            return f"distractor {g.label(o)!r} is also a true answer"
        if name_hint(idx, s, o):
            return f"the subject's name hints option {g.label(o)!r}"
    classes = {idx.entity_class(o) for o in opts}
    if len(classes) != 1 or classes == {"thing"}:
        return f"the options are not of one known class ({sorted(classes)})"
    rc = class_relation(idx, rel, classes.pop())
    if rc is not None:
        values = {o: class_value(idx, o, rc) for o in opts}
        odd = [g.label(o) for o, v in values.items() if v is None or v != values[gold]]
        if odd:
            return f"options {odd} are not of the gold's {g.relation_label(rc)!r} group"
    return opts


def _clues(idx: GraphIndex, r: dict, p: list[Ids], opts: list[str]) -> list[Clue] | str:
    """The record's clues, or why its ``eliminated`` list is malformed or wrong."""
    g = idx.graph
    target = Fact(*p[0])
    entries = r.get("eliminated")
    if not isinstance(entries, list):
        return "field 'eliminated' must be a list (one entry per option but the gold)"
    clues: list[Clue] = []
    for e in entries:
        ids = e.get("fact_ids") if isinstance(e, dict) else None
        if not isinstance(ids, dict) or not all(
            isinstance(ids.get(k), str) for k in ("subject", "relation", "object")
        ):
            return "field 'eliminated': each entry needs option_id, side and fact_ids {subject, relation, object}"
        fact = Fact(str(ids["subject"]), str(ids["relation"]), str(ids["object"]))
        clue = Clue(str(e.get("option_id")), fact, str(e.get("side")))
        why = clue_problem(idx, clue, target, opts)
        if why:
            return f"clue for {e.get('option')!r}: {why}"
        if e.get("option") != g.label(clue.option) or e.get("fact") != g.fact_dict(fact):
            return f"eliminated entry {e.get('option')!r} does not match the graph's labels"
        clues.append(clue)
    if sorted(c.option for c in clues) != sorted(o for o in opts if o != target.object):
        return "eliminated must list every option but the gold exactly once"
    if [(c.fact.subject, c.fact.relation, c.fact.object) for c in clues] != p[1:]:
        return "the premises after the target must be the clue facts, in clue order"
    return clues


def ds_problem(idx: GraphIndex, r: dict, p: list[Ids], text: str) -> str | None:
    """Why the DS record ``r`` is not a valid one-option-left DS item (module docs), or None."""
    g = idx.graph
    s, rel, gold = p[0]
    if r.get("answer_id") != gold:
        return "the answer is not the object of the target fact"
    if not idx.is_unique(s, rel):
        return f"({g.label(s)}, {g.relation_label(rel)}) has no single answer"
    opts = _options(idx, r, s, rel, gold)
    if isinstance(opts, str):
        return opts
    clues = _clues(idx, r, p, opts)
    if isinstance(clues, str):
        return clues
    return _text_problem(idx, r, opts, clues, text)


def _text_problem(
    idx: GraphIndex, r: dict[str, Any], opts: list[str], clues: list[Clue], text: str
) -> str | None:
    g = idx.graph
    labels = [g.label(o) for o in opts]
    if r.get("options") != labels:
        return "options are not the labels of option_ids"
    pos, last = 0, -1
    padded = f" {text} "
    for lab in labels:
        i = padded.find(f" {normalize(lab)} ", pos)
        if i < 0 or i < last:
            return f"the question does not list {lab!r} in display order"
        last, pos = i, i + 1
    for c in clues:
        names = [g.label(c.other), *g.aliases(c.other)]
        if not any(contains_phrase(text, normalize(n)) for n in names if normalize(n)):
            return f"the question does not name the clue entity {g.label(c.other)!r}"
    return None
