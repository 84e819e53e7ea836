"""Validation of the plain-data records attacks consume (ARCHITECTURE.md section 1 and 2)."""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .errors import ForgottenFactLeakError, RecordError

QuestionRecord = Mapping[str, Any]


def _describe(index: int, record: Any) -> str:
    rid = record.get("id") if isinstance(record, Mapping) else None
    return f"record #{index}" + (f" (id {rid!r})" if rid is not None else "")


def validate_questions(
    questions: Sequence[QuestionRecord], required: Iterable[str], *, what: str = "questions"
) -> None:
    """Raise :class:`RecordError` naming the record index, id and field when a field is absent.

    Every required field must be present and a non-empty string (``target`` must be a mapping).
    """
    required = tuple(required)
    seen_ids: set[str] = set()
    for index, record in enumerate(questions):
        if not isinstance(record, Mapping):
            raise RecordError(
                f"{what}: record #{index} is a {type(record).__name__}, not a mapping"
            )
        for field in required:
            value = record.get(field)
            if field == "target":
                if not isinstance(value, Mapping):
                    raise RecordError(
                        f"{what}: {_describe(index, record)} has no usable field 'target' "
                        "(expected {subject, relation, object})"
                    )
                continue
            if not isinstance(value, str) or not value.strip():
                raise RecordError(
                    f"{what}: {_describe(index, record)} is missing field {field!r} "
                    f"(got {value!r}); this attack needs it"
                )
        rid = record.get("id")
        if "id" in required:
            if rid in seen_ids:
                raise RecordError(f"{what}: {_describe(index, record)} repeats id {rid!r}")
            seen_ids.add(rid)


def normalize(text: str) -> str:
    """Lower-case, strip punctuation and collapse whitespace (used for fact comparison)."""
    text = text.lower().translate(str.maketrans(string.punctuation, " " * len(string.punctuation)))
    return re.sub(r"\s+", " ", text).strip()


def as_qa_pairs(
    items: Sequence[Any], *, what: str
) -> list[tuple[str, str, Mapping[str, Any] | None]]:
    """Accept (question, answer) tuples or mappings with question/answer; return uniform triples.

    The third element is the item's ``target`` mapping when present (used by the leak check).
    """
    pairs: list[tuple[str, str, Mapping[str, Any] | None]] = []
    for index, item in enumerate(items):
        if isinstance(item, Mapping):
            q, a = item.get("question"), item.get("answer")
            target = item.get("target") if isinstance(item.get("target"), Mapping) else None
            label = _describe(index, item)
        elif isinstance(item, (tuple, list)) and len(item) == 2:
            q, a = item
            target = None
            label = f"item #{index}"
        else:
            raise RecordError(
                f"{what}: item #{index} must be a (question, answer) pair or a mapping with "
                f"'question' and 'answer', got {type(item).__name__}"
            )
        for field, value in (("question", q), ("answer", a)):
            if not isinstance(value, str) or not value.strip():
                raise RecordError(f"{what}: {label} is missing field {field!r} (got {value!r})")
        pairs.append((q, a, target))
    return pairs


def check_no_forgotten_fact(
    items: Sequence[tuple[str, str, Mapping[str, Any] | None]],
    forgotten: Sequence[QuestionRecord],
    *,
    what: str,
) -> None:
    """Raise :class:`ForgottenFactLeakError` if an item states a forgotten fact.

    An item states a forgotten fact when (a) its question equals (normalised) an attacked
    question, (b) its ``target`` triple equals a forgotten target triple, or (c) its question
    mentions the forgotten target's subject and its answer is the forgotten target's object
    (or the attacked question's gold answer / an alias) - i.e. a paraphrase of the fact.
    """
    questions = {normalize(str(r.get("question", ""))): r for r in forgotten}
    triples = {}
    facts: list[tuple[str, set[str], Any]] = []
    for r in forgotten:
        t = r.get("target")
        if isinstance(t, Mapping):
            key = tuple(normalize(str(t.get(k, ""))) for k in ("subject", "relation", "object"))
            triples[key] = r.get("id")
            answers = {normalize(str(t.get("object", "")))}
            if r.get("type", "SH") == "SH":
                answers.add(normalize(str(r.get("answer", ""))))
                answers.update(normalize(str(a)) for a in r.get("answer_aliases", []) or [])
            answers.discard("")
            facts.append((normalize(str(t.get("subject", ""))), answers, r.get("id")))
    for index, (q, a, target) in enumerate(items):
        nq, na = normalize(q), normalize(a)
        if nq in questions:
            rid = questions[nq].get("id")
            raise ForgottenFactLeakError(
                f"{what}: item #{index} ({q!r}) is the attacked question {rid!r} itself; "
                "it must not contain the forgotten facts"
            )
        if target is not None:
            key = tuple(
                normalize(str(target.get(k, ""))) for k in ("subject", "relation", "object")
            )
            if key in triples:
                raise ForgottenFactLeakError(
                    f"{what}: item #{index} ({q!r}) has target {dict(target)} which is the "
                    f"forgotten fact of question {triples[key]!r}"
                )
        for subject, answers, rid in facts:
            if subject and na in answers and f" {subject} " in f" {nq} ":
                raise ForgottenFactLeakError(
                    f"{what}: item #{index} ({q!r} -> {a!r}) restates the forgotten fact of "
                    f"question {rid!r} (same subject, same answer)"
                )
