"""How far to trust a judge: its agreement with careful reading labels of real responses.

A labelled file is JSON Lines, one response per line, with the fields ``id``, ``type``,
``question``, ``answer``, ``aliases`` (list), ``options`` (list), ``response``, ``label``
(``"correct"`` or ``"incorrect"``) and ``reason``; ``source`` is optional. The shipped set,
:data:`SHIPPED_LABELS`, holds responses of the default model from real leakres runs (base answers,
GA-unlearned answers and Probab attack samples) labelled by reading before any judge verdict was
looked at; its labelling rules are the leak-metrics README's "Labelling rules".

:func:`agreement_table` runs a judge over a labelled file and counts, per question type and over
all: agreement (share of responses where judge and label agree), false-correct (judge says
correct, label says incorrect; as a share of all responses) and false-incorrect (the reverse).
A response the judge leaves unjudged counts as a disagreement and is reported in ``unjudged``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from leak_metrics.datatypes import JudgeItem
from leak_metrics.errors import InputError
from leak_metrics.judges.base import Judge
from leak_metrics.metrics import QUESTION_TYPES

SHIPPED_LABELS = "judge_labels.jsonl"
"""File name of the shipped labelled set inside the ``leak_metrics/data`` package folder."""

_REQUIRED = ("id", "type", "question", "answer", "response", "label")
TYPE_ORDER = QUESTION_TYPES  # the built-in order; other types follow sorted


@dataclass(frozen=True)
class LabelledResponse:
    """One labelled response: the judge item plus the reading label and its one-line reason."""

    item: JudgeItem
    type: str
    correct: bool
    reason: str = ""
    source: dict[str, Any] = field(default_factory=dict)


def shipped_labels_path() -> Path:
    """Path of the shipped labelled set."""
    return Path(str(resources.files("leak_metrics") / "data" / SHIPPED_LABELS))


def load_labels(path: str | Path | None = None) -> list[LabelledResponse]:
    """Read a labelled JSONL file (the shipped set when ``path`` is None); a bad record raises
    :class:`InputError` naming the file, line and field."""
    file = Path(path) if path is not None else shipped_labels_path()
    try:
        lines = file.read_text("utf-8").splitlines()
    except OSError as exc:
        raise InputError(f"{file}: cannot read labelled file ({exc.strerror})") from exc
    out: list[LabelledResponse] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{file}:{number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}: not a JSON object ({exc.msg})") from exc
        if not isinstance(record, dict):
            raise InputError(f"{where}: not a JSON object")
        for name in _REQUIRED:
            if not isinstance(record.get(name), str):
                raise InputError(f"{where}: field '{name}' missing or not a string")
        if record["label"] not in ("correct", "incorrect"):
            raise InputError(
                f"{where}: field 'label' must be 'correct' or 'incorrect', got {record['label']!r}"
            )
        for name in ("aliases", "options"):
            value = record.get(name, [])
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise InputError(f"{where}: field '{name}' must be a list of strings")
        item = JudgeItem(
            id=record["id"],
            question=record["question"],
            answer=record["answer"],
            aliases=tuple(record.get("aliases", [])),
            options=tuple(record.get("options", [])),
            response=record["response"],
        )
        out.append(
            LabelledResponse(
                item,
                record["type"],
                record["label"] == "correct",
                str(record.get("reason", "")),
                dict(record.get("source") or {}),
            )
        )
    if not out:
        raise InputError(f"{file}: no labelled responses")
    return out


@dataclass(frozen=True)
class AgreementRow:
    """Agreement counts of one group (a question type, or ``all``)."""

    group: str
    n: int
    agree: int
    false_correct: int
    false_incorrect: int
    unjudged: int

    @property
    def agreement(self) -> float:
        return self.agree / self.n if self.n else float("nan")

    @property
    def false_correct_rate(self) -> float:
        return self.false_correct / self.n if self.n else float("nan")

    @property
    def false_incorrect_rate(self) -> float:
        return self.false_incorrect / self.n if self.n else float("nan")

    def as_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "agreement": self.agreement,
            "false_correct_rate": self.false_correct_rate,
            "false_incorrect_rate": self.false_incorrect_rate,
            "false_correct": self.false_correct,
            "false_incorrect": self.false_incorrect,
            "unjudged": self.unjudged,
        }


@dataclass(frozen=True)
class AgreementTable:
    """Per-type rows, the ``all`` row, and the ids the judge disagreed on."""

    rows: list[AgreementRow]
    overall: AgreementRow
    disagreements: list[dict[str, Any]]

    def as_dict(self) -> dict[str, Any]:
        return {
            "overall": self.overall.as_dict(),
            "by_type": {row.group: row.as_dict() for row in self.rows},
        }

    def markdown(self) -> str:
        lines = [
            "| type | n | agreement | false-correct | false-incorrect |",
            "|---|---:|---:|---:|---:|",
        ]
        for row in [*self.rows, self.overall]:
            lines.append(
                f"| {row.group} | {row.n} | {100 * row.agreement:.1f}% | "
                f"{row.false_correct} ({100 * row.false_correct_rate:.1f}%) | "
                f"{row.false_incorrect} ({100 * row.false_incorrect_rate:.1f}%) |"
            )
        return "\n".join(lines)


def count_row(group: str, pairs: list[tuple[bool, bool | None]]) -> AgreementRow:
    agree = sum(judged is label for label, judged in pairs)
    false_correct = sum(judged is True and not label for label, judged in pairs)
    false_incorrect = sum(judged is False and label for label, judged in pairs)
    unjudged = sum(judged is None for _, judged in pairs)
    return AgreementRow(group, len(pairs), agree, false_correct, false_incorrect, unjudged)


def agreement_table(judge: Judge, labelled: list[LabelledResponse]) -> AgreementTable:
    """Run ``judge`` on every labelled response (one batch) and count agreement per type."""
    verdicts = judge.judge([r.item for r in labelled])
    pairs = [(r.correct, v.correct) for r, v in zip(labelled, verdicts, strict=True)]
    known = [t for t in TYPE_ORDER if any(r.type == t for r in labelled)]
    types = known + sorted({r.type for r in labelled} - set(known))
    rows = [
        count_row(t, [p for p, r in zip(pairs, labelled, strict=True) if r.type == t])
        for t in types
    ]
    disagreements = [
        {"id": r.item.id, "label": r.correct, "judge": v.correct, "reason": v.reason}
        for r, v in zip(labelled, verdicts, strict=True)
        if v.correct is not r.correct
    ]
    return AgreementTable(rows, count_row("all", pairs), disagreements)
