"""The labelled sets ``check-judge`` reports on, and how far two labellers agree.

Every labelled file in the package data folder (or a folder of your own) is reported, in this
order (:func:`present_sets`; a missing file is simply not reported):

- the **development set**: :data:`DEV_FILES` (``judge_labels.jsonl``, the labels the rules were
  first written and tuned on, and ``judge_labels_dev_r3.jsonl``, the round-three sample of the
  full preset's responses), read together; the first file must be there;
- the **round-three sealed set, now development**: :data:`SEALED_FILE`, measured once after the
  round-three rules froze and read since (the round-four rules were tuned on half of it);
- the **round-four sealed set**: :data:`SEALED_R4_FILE`, labelled by others from another run and
  measured once after the round-four rules froze (added by the coordinator);
- any other ``judge_labels*.jsonl`` file, under its own name.

A set's **second labels** (:data:`SECOND_FILE` for round three, :data:`SECOND_R4_FILE` for round
four, ``<stem>_second.jsonl`` for another file) are the same ids, or a share of them, labelled
independently by a second labeller; :func:`labeller_agreement` compares them with the set's
labels (Cohen's kappa and % agreement), the ceiling the judge is held to.

Every set is reported the same way (:func:`report_set`): overall, per type, per stage
(``source.stage``), with false-correct and false-incorrect as shares of all responses, and each
disagreement with its class (:mod:`leak_metrics.judges.disagreement_classes`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from leak_metrics.datatypes import Verdict
from leak_metrics.errors import InputError
from leak_metrics.judges.base import Judge
from leak_metrics.judges.disagreement_classes import disagreement_class
from leak_metrics.judges.labelled import (
    TYPE_ORDER,
    AgreementRow,
    LabelledResponse,
    agreement_table,
    count_row,
    load_labels,
    shipped_labels_path,
)

DEV_FILES = ("judge_labels.jsonl", "judge_labels_dev_r3.jsonl")
SEALED_FILE = "judge_labels_sealed.jsonl"
SECOND_FILE = "judge_labels_sealed_second.jsonl"
SEALED_R4_FILE = "judge_labels_sealed_r4.jsonl"
SECOND_R4_FILE = "judge_labels_sealed_r4_second.jsonl"
LABEL_GLOB = "judge_labels*.jsonl"
SECOND_SUFFIX = "_second"


@dataclass(frozen=True)
class SetSpec:
    """One labelled set: its printed name, its files (read together) and its second labels."""

    name: str
    files: tuple[str, ...]
    second: str | None = None


KNOWN_SETS = (
    SetSpec("development set", DEV_FILES),
    SetSpec("round-three sealed set (now development)", (SEALED_FILE,), SECOND_FILE),
    SetSpec(
        "sealed set, round four (measured once after the rules froze)",
        (SEALED_R4_FILE,),
        SECOND_R4_FILE,
    ),
)


def cohen_kappa(first: Sequence[bool], second: Sequence[bool]) -> float | None:
    """Cohen's kappa of two binary labellings of the same items (paired by position); ``None``
    when it is undefined (no items, or chance agreement 1: both labellers constant and equal)."""
    if len(first) != len(second):
        raise ValueError(f"labellings differ in length: {len(first)} vs {len(second)}")
    n = len(first)
    if n == 0:
        return None
    observed = sum(a == b for a, b in zip(first, second, strict=True)) / n
    p_first = sum(first) / n
    p_second = sum(second) / n
    expected = p_first * p_second + (1 - p_first) * (1 - p_second)
    if expected >= 1.0:
        return None
    return (observed - expected) / (1 - expected)


def labeller_agreement(
    first: list[LabelledResponse], second: list[LabelledResponse]
) -> dict[str, Any]:
    """Agreement of two labellers on the ids both labelled: ``{"n", "agreement", "kappa",
    "only_second"}`` (``only_second``: ids of the second file missing from the first)."""
    by_id = {r.item.id: r.correct for r in first}
    shared = [r for r in second if r.item.id in by_id]
    a = [by_id[r.item.id] for r in shared]
    b = [r.correct for r in shared]
    agree = sum(x == y for x, y in zip(a, b, strict=True))
    return {
        "n": len(shared),
        "agreement": agree / len(shared) if shared else None,
        "kappa": cohen_kappa(a, b),
        "only_second": sorted(r.item.id for r in second if r.item.id not in by_id),
    }


@dataclass(frozen=True)
class SetReport:
    """One labelled set judged: rows per type and per stage, the overall row, the judge's kappa
    with the labels, and every disagreement with its class."""

    name: str
    by_type: list[AgreementRow]
    by_stage: list[AgreementRow]
    overall: AgreementRow
    kappa: float | None
    disagreements: list[dict[str, Any]]

    def as_dict(self) -> dict[str, Any]:
        return {
            "set": self.name,
            "overall": self.overall.as_dict(),
            "judge_label_kappa": self.kappa,
            "by_type": {row.group: row.as_dict() for row in self.by_type},
            "by_stage": {row.group: row.as_dict() for row in self.by_stage},
        }


def _stage(record: LabelledResponse) -> str:
    return str(record.source.get("stage") or "unknown")


def report_set(
    name: str, judge: Judge, labelled: list[LabelledResponse], verdicts: list[Verdict] | None = None
) -> SetReport:
    """Judge ``labelled`` (one batch, unless ``verdicts`` are given) and count agreement."""
    if verdicts is None:
        verdicts = judge.judge([r.item for r in labelled])
    pairs = [(r.correct, v.correct) for r, v in zip(labelled, verdicts, strict=True)]

    def rows(key: Any, order: Sequence[str] = ()) -> list[AgreementRow]:
        groups = [g for g in order if any(key(r) == g for r in labelled)]
        groups += sorted({key(r) for r in labelled} - set(groups))
        return [
            count_row(g, [p for p, r in zip(pairs, labelled, strict=True) if key(r) == g])
            for g in groups
        ]

    judged = [(label, j) for label, j in pairs if j is not None]
    kappa = cohen_kappa([label for label, _ in judged], [bool(j) for _, j in judged])
    disagreements = [
        {
            "id": r.item.id,
            "type": r.type,
            "stage": _stage(r),
            "label": r.correct,
            "judge": v.correct,
            "class": disagreement_class(r, v),
            "reason": v.reason,
        }
        for r, v in zip(labelled, verdicts, strict=True)
        if v.correct is not r.correct
    ]
    return SetReport(
        name,
        rows(lambda r: r.type, TYPE_ORDER),
        rows(_stage),
        count_row("all", pairs),
        kappa,
        disagreements,
    )


def data_dir() -> Path:
    """The package data folder holding the shipped label files."""
    return shipped_labels_path().parent


def load_dev(folder: Path) -> list[LabelledResponse]:
    """Every development file present in ``folder`` (at least the first must be there); an id
    labelled twice across the files is an error."""
    out: list[LabelledResponse] = []
    for index, name in enumerate(DEV_FILES):
        path = folder / name
        if path.is_file():
            out.extend(load_labels(path))
        elif index == 0:
            raise InputError(f"{path}: development labels missing")
    seen: set[str] = set()
    for r in out:
        if r.item.id in seen:
            raise InputError(f"{folder}: id '{r.item.id}' labelled in two development files")
        seen.add(r.item.id)
    return out


def present_sets(folder: Path) -> list[SetSpec]:
    """The sets with a file in ``folder``, in report order: the known sets (:data:`KNOWN_SETS`),
    then every other ``judge_labels*.jsonl`` (not a second-label file) under its own name, with
    ``<stem>_second.jsonl`` as its second labels. The development set is always first (its first
    file is required: :func:`load_dev`)."""
    specs = [KNOWN_SETS[0]]
    specs += [spec for spec in KNOWN_SETS[1:] if (folder / spec.files[0]).is_file()]
    known = {name for spec in KNOWN_SETS for name in (*spec.files, spec.second) if name}
    for path in sorted(folder.glob(LABEL_GLOB)):
        if path.name in known or path.stem.endswith(SECOND_SUFFIX):
            continue
        specs.append(SetSpec(path.name, (path.name,), f"{path.stem}{SECOND_SUFFIX}.jsonl"))
    return specs


def load_set(folder: Path, spec: SetSpec) -> list[LabelledResponse]:
    """The labels of ``spec`` (the development set through :func:`load_dev`)."""
    if spec.files == DEV_FILES:
        return load_dev(folder)
    out: list[LabelledResponse] = []
    for name in spec.files:
        out.extend(load_labels(folder / name))
    return out


def second_labels(folder: Path, spec: SetSpec) -> list[LabelledResponse] | None:
    """The set's second labels, when their file is there."""
    if spec.second is None or not (folder / spec.second).is_file():
        return None
    return load_labels(folder / spec.second)


def report_folder(judge: Judge, folder: Path) -> list[tuple[SetReport, dict[str, Any] | None]]:
    """Every set present in ``folder`` (:func:`present_sets`) judged, each with its labellers'
    agreement when its second labels are there: :func:`labeller_agreement` plus ``set`` and the
    judge's agreement and kappa with the first labeller on the same ids
    (``judge_on_same_ids``, ``judge_kappa_on_same_ids``)."""
    out: list[tuple[SetReport, dict[str, Any] | None]] = []
    for spec in present_sets(folder):
        labelled = load_set(folder, spec)
        report = report_set(spec.name, judge, labelled)
        second = second_labels(folder, spec)
        humans = None
        if second is not None:
            humans = {"set": spec.name, **labeller_agreement(labelled, second)}
            ids = {r.item.id for r in second}
            shared = [r for r in labelled if r.item.id in ids]
            judged = report_set(f"{spec.name}, doubly labelled ids", judge, shared)
            humans["judge_on_same_ids"] = judged.overall.agreement if shared else None
            humans["judge_kappa_on_same_ids"] = judged.kappa
        out.append((report, humans))
    return out


def markdown_rows(rows: list[AgreementRow], first: str) -> str:
    """A Markdown table of ``rows`` (``first``: the name of the grouping column)."""
    lines = [
        f"| {first} | n | agreement | false-correct | false-incorrect |",
        "|---|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row.group} | {row.n} | {100 * row.agreement:.1f}% | "
            f"{row.false_correct} ({100 * row.false_correct_rate:.1f}%) | "
            f"{row.false_incorrect} ({100 * row.false_incorrect_rate:.1f}%) |"
        )
    return "\n".join(lines)


def markdown_report(report: SetReport) -> str:
    """The set's block: per type with the overall row, then per stage."""
    kappa = "n/a" if report.kappa is None else f"{report.kappa:.3f}"
    return "\n".join(
        [
            f"### {report.name}: {report.overall.n} responses, agreement "
            f"{100 * report.overall.agreement:.1f}%, judge-label kappa {kappa}",
            "",
            markdown_rows([*report.by_type, report.overall], "type"),
            "",
            markdown_rows(report.by_stage, "stage"),
        ]
    )


@lru_cache(maxsize=8)
def _shipped_agreement(judge_name: str) -> dict[str, Any]:
    from leak_metrics.judges.registry import get_judge

    table = agreement_table(get_judge(judge_name), load_dev(data_dir()))
    return {"labels": " + ".join(DEV_FILES), "n": table.overall.n, **table.as_dict()}


def labelled_agreement(judge_name: str) -> dict[str, Any] | None:
    """The agreement of a deterministic built-in judge (``alias``) with the shipped development
    labels (every file of :data:`label_sets.DEV_FILES`):
    ``{"labels", "n", "overall": {...}, "by_type": {...}}``; ``None`` for a judge whose agreement
    is not known offline (an LLM judge: measure it with ``leak-metrics check-judge``)."""
    if judge_name.lower() != "alias":
        return None
    return _shipped_agreement(judge_name.lower())
