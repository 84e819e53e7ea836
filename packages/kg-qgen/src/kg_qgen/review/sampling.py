"""Reading a built question set and drawing the review sample.

The sample is a seeded uniform sample without replacement of ``per_type`` questions of each type
(paper F.1: "uniformly sampling 50 instances from each logical category"). It depends only on
the question ids present, ``per_type`` and ``seed`` - never on the order of the file or on who
asks - so every annotator gets the same items.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kg_qgen.errors import KgQgenInputError
from kg_qgen.match.base import QUESTION_TYPES
from kg_qgen.textio import iter_utf8_lines, parse_json

__all__ = ["SampleItem", "file_sha256", "read_questions", "sample_per_type", "type_order"]

QUESTIONS_FILE = "questions.jsonl"


@dataclass(frozen=True)
class SampleItem:
    item_id: str
    type: str
    position: int  # 0-based place in the review order (types in QUESTION_TYPES order)


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read_questions(set_dir: str | Path) -> tuple[Path, list[dict[str, Any]]]:
    """``(path, records)`` of ``set_dir/questions.jsonl``; bad lines raise one clear error."""
    path = Path(set_dir) / QUESTIONS_FILE
    if not path.is_file():
        raise KgQgenInputError(
            "no questions.jsonl (not a `kg-qgen build --out` folder?)", path=str(path)
        )
    records: list[dict[str, Any]] = []
    seen: set[str] = set()
    # streamed: a bad byte, huge number or deep nesting fails at its line, in one error
    for n, line in iter_utf8_lines(path, "question file"):
        if not line.strip():
            continue
        rec = parse_json(line, str(path), line=n)
        if not isinstance(rec, dict):
            raise KgQgenInputError("expected a JSON object", path=str(path), line=n)
        for key in ("id", "type", "question", "answer"):
            if not isinstance(rec.get(key), str) or not rec[key].strip():
                raise KgQgenInputError("missing or empty string", path=str(path), line=n, field=key)
        if rec["id"] in seen:
            raise KgQgenInputError(
                f"duplicate id {rec['id']!r}", path=str(path), line=n, field="id"
            )
        seen.add(rec["id"])
        records.append(rec)
    return path, records


def type_order(types: Sequence[str]) -> list[str]:
    """Known types in the paper's order, then any others alphabetically."""
    present = set(types)
    return [t for t in QUESTION_TYPES if t in present] + sorted(present - set(QUESTION_TYPES))


def sample_per_type(
    records: Sequence[dict[str, Any]], per_type: int = 50, seed: int = 0
) -> list[SampleItem]:
    """Seeded uniform sample of ``per_type`` ids per type (all of a type's ids when it has fewer).

    Within a type the ids are sorted before sampling and the items keep the sampled (random)
    order, so neighbouring items are not consecutive matches of one template.
    """
    if per_type < 1:
        raise ValueError(f"per_type must be >= 1, got {per_type}")
    by_type: dict[str, list[str]] = {}
    for rec in records:
        by_type.setdefault(rec["type"], []).append(rec["id"])
    items: list[SampleItem] = []
    for qtype in type_order(list(by_type)):
        ids = sorted(by_type[qtype])
        rng = random.Random(f"{seed}:review:{qtype}")
        chosen = rng.sample(ids, min(per_type, len(ids)))
        items += [SampleItem(i, qtype, len(items) + k) for k, i in enumerate(chosen)]
    return items
