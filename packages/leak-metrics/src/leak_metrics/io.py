"""Readers for the JSONL files leak-metrics scores: question records (docs/ARCHITECTURE.md section
1) and response files (``{"id", "response": str}`` or ``{"id", "responses": [str, ...]}``, e.g.
attack outputs of section 4). Every error names the file, the line and the field or id."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from leak_metrics.datatypes import JudgeItem, MultiResponseItem
from leak_metrics.errors import InputError


def _iter_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        handle = path.open(encoding="utf-8")
    except FileNotFoundError as exc:
        raise InputError(f"{path}: file not found") from exc
    with handle:
        for lineno, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"{path}:{lineno}: invalid JSON ({exc.msg})") from exc
            if not isinstance(record, dict):
                raise InputError(f"{path}:{lineno}: expected a JSON object")
            yield lineno, record


def _require_str(path: Path, lineno: int, record: Mapping[str, Any], field: str) -> str:
    value = record.get(field)
    if not isinstance(value, str):
        raise InputError(f"{path}:{lineno}: field '{field}' must be a string, got {value!r}")
    return value


def load_questions(path: str | os.PathLike[str]) -> dict[str, dict[str, Any]]:
    """Question records keyed by id; checks ``id``, ``type``, ``question``, ``answer`` and
    ``answer_aliases`` and ``options`` (absent = ``[]``) and rejects duplicate ids."""
    path = Path(path)
    out: dict[str, dict[str, Any]] = {}
    for lineno, record in _iter_jsonl(path):
        qid = _require_str(path, lineno, record, "id")
        for field in ("type", "question", "answer"):
            _require_str(path, lineno, record, field)
        for field in ("answer_aliases", "options"):  # options: optional in older sets
            values = record.get(field, [])
            if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
                raise InputError(f"{path}:{lineno}: field '{field}' must be a list of strings")
        if qid in out:
            raise InputError(f"{path}:{lineno}: duplicate question id '{qid}'")
        out[qid] = record
    return out


def load_responses(
    path: str | os.PathLike[str],
    questions: Mapping[str, Mapping[str, Any]],
    *,
    questions_path: str | os.PathLike[str] | None = None,
) -> list[MultiResponseItem]:
    """Read a response JSONL and pair every line with its question.

    A line may carry ``response`` (one string) or ``responses`` (list of strings); both become a
    :class:`MultiResponseItem`. An id that is not among ``questions`` raises
    :class:`InputError` naming the file, the line and the id.
    """
    path = Path(path)
    where = f" in {questions_path}" if questions_path else ""
    items: list[MultiResponseItem] = []
    for lineno, record in _iter_jsonl(path):
        qid = _require_str(path, lineno, record, "id")
        if qid not in questions:
            raise InputError(f"{path}:{lineno}: question id '{qid}' not found{where}")
        if "responses" in record:
            responses = record["responses"]
            if not isinstance(responses, list) or not all(isinstance(r, str) for r in responses):
                raise InputError(f"{path}:{lineno}: field 'responses' must be a list of strings")
        elif "response" in record:
            responses = [_require_str(path, lineno, record, "response")]
        else:
            raise InputError(
                f"{path}:{lineno}: record '{qid}' has neither 'response' nor 'responses'"
            )
        question = questions[qid]
        items.append(
            MultiResponseItem(
                id=qid,
                question=question["question"],
                answer=question["answer"],
                aliases=tuple(question.get("answer_aliases", [])),
                options=tuple(question.get("options", [])),
                responses=tuple(responses),
            )
        )
    return items


def single_response_items(items: list[MultiResponseItem]) -> list[JudgeItem]:
    """Turn one-response items into :class:`JudgeItem` (error if an item has several)."""
    out: list[JudgeItem] = []
    for item in items:
        if len(item.responses) != 1:
            raise InputError(
                f"item '{item.id}' has {len(item.responses)} responses; use judge_any for several"
            )
        out.append(item.judge_item(item.responses[0]))
    return out
