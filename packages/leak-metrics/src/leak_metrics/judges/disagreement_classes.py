"""The class of a disagreement between a judge and a label, assigned by rule (issue 35).

A false-correct (judge correct, label incorrect) is ``lenient-*``, a false-incorrect
``strict-*``, a yes/no item ``yes-no-*``; the first rule that fits names the class, ``other``
when none does. The rules read the committed answer (:func:`leak_metrics.committed_answer`) and
the judge's reason:

- lenient: ``mixed-nationality`` (a hyphenated nationality, "Canadian-American"), ``title``
  ("President of ..."), ``larger-unit`` ("the state of ..."), ``negation`` (not/never/no/
  neither/nor), ``other-relation`` (born/based/lives/died/works), ``demonym`` (the judge named an
  adjective), ``list`` (and/or/commas between names), ``longer-name`` (the gold next to another
  capitalised word), ``common-word`` (the gold's words in lower case);
- strict: by the rule the judge applied: ``list``, ``other-name-first``, ``citizenship-slot``,
  ``subject``, ``negation``, ``refusal``, ``mixed-nationality``, ``denial``, ``role``,
  ``contradiction``, ``condition``, ``other-relation``, ``unit``, ``hint``, ``several-values``; when the
  gold is not named: ``lead-in`` (a later sentence names it), ``demonym`` (an adjective is
  there that the judge did not take), else ``no-mention``;
- yes/no: ``yes-no-hedge`` (judge yes/no, label: a hedge), ``yes-no-interjection`` (a yes/no
  after one or two words), ``yes-no-denial`` / ``yes-no-affirmation`` (no yes/no word; gold no /
  yes), ``yes-no-lenient`` / ``yes-no-other``.
"""

from __future__ import annotations

import re

from leak_metrics.datatypes import Verdict
from leak_metrics.judges.answer_span import committed_answer
from leak_metrics.judges.labelled import LabelledResponse
from leak_metrics.normalize import tokenize

_LENIENT = (
    ("mixed-nationality", re.compile(r"\b[A-Z][a-z]+(?:an|ish|ese|ic|i)-[A-Z][a-z]+\b")),
    (
        "title",
        re.compile(r"\b(?:President|Minister|King|Queen|Governor|Mayor|Senator)\s+of\b"),
    ),
    ("larger-unit", re.compile(r"\b(?:state|province|county|region)\s+of\b", re.IGNORECASE)),
    ("negation", re.compile(r"\b(?:not|never|no|neither|nor|none)\b|n't\b", re.IGNORECASE)),
    ("other-relation", re.compile(r"\b(?:born|based|lives|lived|died|works)\b")),
)
_STRICT_REASONS = (
    ("list", "lists the gold"),
    ("other-name-first", "commits to another answer"),
    ("citizenship-slot", "citizenship"),
    ("subject", "not about the subject"),
    ("negation", "negates the gold"),
    ("refusal", "refusal"),
    ("mixed-nationality", "mixed nationality"),
    ("denial", "denies"),
    ("role", "another role"),
    ("contradiction", "contradicts"),
    ("condition", "inside a condition"),
    ("other-relation", "another relation"),
    ("unit", "a unit of the gold"),
    ("hint", "question's hint"),
    ("several-values", "several values"),
)
_ADJECTIVE = re.compile(r"\b[A-Z][a-z]+(?:an|ish|ese|ic|i)\b")


def disagreement_class(record: LabelledResponse, verdict: Verdict) -> str:
    """The class of the disagreement (see the module docstring); ``agree`` when there is none."""
    if verdict.correct is record.correct:
        return "agree"
    if verdict.correct is None:
        return "unjudged"
    text = committed_answer(record.item.response)
    gold = tokenize(record.item.answer)
    if gold in (["yes"], ["no"]):
        return _yes_no_class(text, gold[0], lenient=verdict.correct)
    if verdict.correct:
        return _lenient_class(text, record, verdict)
    return _strict_class(text, record, verdict)


def _yes_no_class(text: str, gold: str, lenient: bool) -> str:
    words = tokenize(text)
    if lenient:
        if {"yes", "no"} <= set(words) or "maybe" in words:
            return "yes-no-hedge"
        return "yes-no-lenient"
    if words and words[0] not in ("yes", "no") and {"yes", "no"} & set(words[:3]):
        return "yes-no-interjection"
    if not {"yes", "no"} & set(words):
        return "yes-no-denial" if gold == "no" else "yes-no-affirmation"
    return "yes-no-other"


def _lenient_class(text: str, record: LabelledResponse, verdict: Verdict) -> str:
    for name, pattern in _LENIENT:
        if pattern.search(text):
            return f"lenient-{name}"
    named = verdict.reason.rpartition("names '")[2].rstrip("')")
    if _ADJECTIVE.fullmatch(named or ""):
        return "lenient-demonym"
    if re.search(r"\b(?:and|or)\b|,", text):
        return "lenient-list"
    forms = [record.item.answer, *record.item.aliases]
    for form in forms:
        at = text.find(form) if form else -1
        if at > 0 and re.search(r"[A-Z][\w.]*\s*$", text[:at]):
            return "lenient-longer-name"
        if form and form[:1].isupper() and form.lower() in text and form not in text:
            return "lenient-common-word"
    return "lenient-other"


def _strict_class(text: str, record: LabelledResponse, verdict: Verdict) -> str:
    for name, marker in _STRICT_REASONS:
        if marker in verdict.reason:
            return f"strict-{name}"
    if "does not name the gold" in verdict.reason:
        rest = record.item.response[len(text) :]
        forms = [tokenize(f) for f in (record.item.answer, *record.item.aliases)]
        later = tokenize(rest)
        if any(f and _contains(later, f) for f in forms):
            return "strict-lead-in"
        if _ADJECTIVE.search(text):
            return "strict-demonym"
        return "strict-no-mention"
    return "strict-other"


def _contains(words: list[str], needle: list[str]) -> bool:
    w = len(needle)
    return any(words[i : i + w] == needle for i in range(len(words) - w + 1))
