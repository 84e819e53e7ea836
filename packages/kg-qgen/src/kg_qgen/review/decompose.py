"""What an annotator checks a question against: its premises as single-hop questions, the bridge
and the logic type's rule in words (paper section 3 and appendix C).

Everything is derived from the documented record fields (docs/ARCHITECTURE.md section 1:
``premises``, ``target``, ``bridge``, ``answer``; optional ``premise_ids``, ``options``, ``alias``,
``partner``, ``rule``) and tolerates records that lack the optional ones, so a set built by
another generator or an older kg-qgen still renders. Single-hop wording reuses the template
generator's per-relation phrasing (:mod:`kg_qgen.wording.phrasing`), so a premise reads like the
set's own SH questions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kg_qgen.qtypes import find_question_type
from kg_qgen.wording import phrase_for

__all__ = ["LOGIC_RULES", "Decomposition", "LogicRule", "SingleHop", "decompose"]


@dataclass(frozen=True)
class LogicRule:
    """A question type's logic: name, formula (paper section 3) and the rule in plain words."""

    name: str
    formula: str
    words: str


LOGIC_RULES: dict[str, LogicRule] = {
    "SH": LogicRule(
        "Single hop",
        "A",
        "The question asks the target fact directly; nothing has to be inferred.",
    ),
    "HS": LogicRule(
        "Hypothetical Syllogism",
        "(A → B) ∧ (B → C) ⊢ (A → C)",
        "Chain two facts: the object of the first fact (the bridge, never named) is the subject "
        "of the second; the answer is the object of the second fact.",
    ),
    "MP": LogicRule(
        "Modus Ponens",
        "(A → B) ∧ A ⊢ B",
        "The question states a general rule and one instance of its condition (the first fact, "
        "its object masked); applying the rule to the instance gives the answer.",
    ),
    "LL": LogicRule(
        "Leibniz's Law",
        "x = y ∧ A(x) ⊢ A(y)",
        "The subject is named by another name (an alias) of the same entity; what is true of the "
        "entity under one name is true under the other, so the fact answers the question.",
    ),
    "CC": LogicRule(
        "Conjunctive Composition",
        "x ∈ A ∧ x ∈ B ⊢ x ∈ A ∩ B",
        "Two subjects share the value of one relation; the answer is the value common to both.",
    ),
    "DS": LogicRule(
        "Disjunctive Syllogism",
        "(A ∨ B) ∧ ¬A ⊢ B",
        "The answer is one of the listed options, all of one kind; the question rules out every "
        "option but one, each through another fact, and the one left is the answer.",
    ),
    "MT": LogicRule(
        "Modus Tollens",
        "(A → B) ∧ ¬B ⊢ ¬A",
        "The question states one conditional per option; the consequence of the distractor's "
        "conditional is false in reality (the facts give another value), so its condition is "
        "false too, and the other option remains. Which consequence fails is not stated.",
    ),
}

_UNKNOWN_RULE = LogicRule("Unknown type", "?", "This type has no rule description.")


@dataclass(frozen=True)
class SingleHop:
    """One premise asked as a single-hop question."""

    question: str
    answer: str
    subject: str
    relation: str
    is_target: bool  # the fact to forget
    mentions_bridge: bool  # its subject or object is the masked bridge entity


@dataclass(frozen=True)
class Decomposition:
    type: str
    rule: LogicRule
    steps: list[SingleHop]
    bridge: str | None
    derivation: str  # how the answer follows from the steps, in words, with this item's entities
    options: list[str] = field(default_factory=list)
    stated_rule: str | None = None  # MP: the rule sentence the question states
    alias: str | None = None  # LL: the alias used
    notes: list[str] = field(default_factory=list)  # fields the record lacks


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _fact(value: Any) -> dict[str, str] | None:
    if not isinstance(value, Mapping):
        return None
    out = {k: _text(value.get(k)) for k in ("subject", "relation", "object")}
    return out if all(out.values()) else None


def _single_hop_question(fact: Mapping[str, str], relation_id: str | None) -> str:
    phrase = phrase_for(relation_id or fact["relation"], fact["relation"])
    return phrase.direct(fact["subject"], 0)


def _registered_rule(qtype: str) -> LogicRule:
    """The rule of a type registered outside this module (a plugin), else the unknown rule."""
    found = find_question_type(qtype)
    return LogicRule(found.name, found.formula, found.words) if found else _UNKNOWN_RULE


def decompose(record: Mapping[str, Any]) -> Decomposition:
    """The decomposition of one question record (never raises on missing optional fields)."""
    qtype = _text(record.get("type")).upper()
    rule = LOGIC_RULES.get(qtype) or _registered_rule(qtype)
    notes: list[str] = []
    raw_premises = record.get("premises")
    premises = [f for f in (raw_premises if isinstance(raw_premises, list) else []) if _fact(f)]
    premises = [_fact(f) for f in premises]  # type: ignore[misc]
    if not premises:
        notes.append("the record has no usable 'premises'")
    ids = record.get("premise_ids")
    ids = ids if isinstance(ids, list) and len(ids) == len(premises) else [None] * len(premises)
    target = _fact(record.get("target"))
    bridge = record.get("bridge") or None
    bridge = _text(bridge) if bridge is not None else None

    steps = []
    for fact, fid in zip(premises, ids, strict=True):
        assert fact is not None
        rel_id = fid.get("relation") if isinstance(fid, Mapping) else None
        steps.append(
            SingleHop(
                question=_single_hop_question(fact, rel_id),
                answer=fact["object"],
                subject=fact["subject"],
                relation=fact["relation"],
                is_target=target is not None and fact == target,
                mentions_bridge=bridge is not None and bridge in (fact["subject"], fact["object"]),
            )
        )

    options = record.get("options")
    options = [_text(o) for o in options] if isinstance(options, list) else []
    alias = _text(record.get("alias")) or None
    stated_rule = _text(record.get("rule")) or None
    answer = _text(record.get("answer"))
    derivation = _derivation(
        qtype, premises, target, bridge, answer, options, alias, stated_rule, record
    )
    return Decomposition(
        type=qtype,
        rule=rule,
        steps=steps,
        bridge=bridge,
        derivation=derivation,
        options=options,
        stated_rule=stated_rule,
        alias=alias,
        notes=notes,
    )


def _derivation(
    qtype: str,
    premises: list[dict[str, str] | None],
    target: dict[str, str] | None,
    bridge: str | None,
    answer: str,
    options: list[str],
    alias: str | None,
    stated_rule: str | None,
    record: Mapping[str, Any],
) -> str:
    """The rule applied to this item's entities; generic when the record lacks what it needs."""
    p = [f for f in premises if f is not None]
    t = target or (p[0] if p else None)
    if t is None:
        return f"Expected answer: {answer}."
    direct = f"the {t['relation']} of {t['subject']} is {t['object']}"
    if qtype == "SH":
        return f"Directly: {direct}."
    if qtype in ("HS", "MP") and len(p) >= 2:
        first, second = p[0], p[1]
        lead = f"Rule: “{stated_rule}” " if qtype == "MP" and stated_rule else ""
        return (
            f"{lead}Hop 1: the {first['relation']} of {first['subject']} is {first['object']} "
            f"(the bridge, not named). Hop 2: the {second['relation']} of {second['subject']} "
            f"is {second['object']}. So the answer is {answer}."
        )
    if qtype == "LL":
        name = alias or "the alias in the question"
        return f"“{name}” is another name of {t['subject']}; {direct}, so the answer is {answer}."
    if qtype == "CC" and len(p) >= 2:
        subjects = " and ".join(f["subject"] for f in p)
        return (
            f"{subjects} both have {t['relation']} {t['object']}: the shared value, {answer}, "
            "is the answer."
        )
    if qtype == "DS":
        return _ds_derivation(options, record, direct, answer)
    if qtype == "MT" and len(p) >= 2:
        return _mt_derivation(p[0], p[1], record, answer)
    return f"Expected answer: {answer}."


def _ds_derivation(options: list[str], record: Mapping[str, Any], direct: str, answer: str) -> str:
    """DS: the options, each one ruled out by its clue's fact, and the one left."""
    opts = ", ".join(options) if options else "(options not recorded)"
    entries = record.get("eliminated")
    facts = [
        (e.get("option"), _fact(e.get("fact")))
        for e in (entries if isinstance(entries, list) else [])
        if isinstance(e, dict)
    ]
    ruled = [
        f"{o} (the {f['relation']} of {f['subject']} is {f['object']})" for o, f in facts if o and f
    ]
    if ruled:
        out = "Ruled out: " + "; ".join(ruled)
        return f"Options: {opts}. {out}. One option is left; {direct}, so the answer is {answer}."
    return f"Options: {opts}. The others are ruled out in the question; {direct}, so the answer is {answer}."


def _mt_derivation(
    first: dict[str, str], second: dict[str, str], record: Mapping[str, Any], answer: str
) -> str:
    """MT: each option's conditional against the real chain (modus tollens on the distractor)."""
    d = _fact(record.get("distractor_fact"))
    ruled = (
        f"if it were {d['subject']}, the {second['relation']} would be {d['object']}, but "
        f"it is {second['object']}, so by modus tollens it is not {d['subject']}"
        if d
        else "the other option's conditional has a false consequent (modus tollens)"
    )
    return (
        f"In reality the {first['relation']} of {first['subject']} is {first['object']} (the "
        f"target fact), whose {second['relation']} is {second['object']}: {ruled}. The "
        f"expected answer is {answer}."
    )
