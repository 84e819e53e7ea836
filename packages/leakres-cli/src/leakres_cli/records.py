"""Question records (kg-qgen's format, docs/ARCHITECTURE.md section 1) as the pipeline reads them."""

from __future__ import annotations

from typing import Any

from leakres_cli.errors import LeakresError

Record = dict[str, Any]
FactKey = tuple[str, str, str]


def fact_key(fact: dict[str, str]) -> FactKey:
    return (fact["subject"], fact["relation"], fact["object"])


def question_options(question: Record) -> tuple[str, ...]:
    """The record's answer options (multiple-choice questions), ``()`` when the field is absent."""
    options = question.get("options")
    if options is None:
        return ()
    if not isinstance(options, (list, tuple)) or not all(isinstance(o, str) for o in options):
        raise LeakresError(
            f"question '{question.get('id')}': field 'options' must be a list of strings, "
            f"got {options!r}"
        )
    return tuple(options)
