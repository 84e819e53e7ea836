"""`leakres run --save-models`: the inputs of `leakres eval` that reproduce the run, written next to
the saved models (ARCHITECTURE.md section 12, ``models/``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from leakres_cli.records import Record
from leakres_cli.scale.store import write_text_atomic


def save_run_facts(
    target: Path, questions_cell: dict[str, Any], forget: list[Record], retain: list[Record]
) -> None:
    """`leakres run --save-models`: the run's forget and retain facts and its questions next to the
    saved models, so `leakres eval --questions DIR --forget DIR/forget.jsonl --retain
    DIR/retain.jsonl` measures a saved model on exactly the run's questions."""
    rows = questions_cell["questions"] + questions_cell.get("sh_reserve", [])
    for name, records in (
        ("forget.jsonl", forget),
        ("retain.jsonl", retain),
        ("questions.jsonl", rows),
    ):
        text = "".join(
            json.dumps(q["target"] if name != "questions.jsonl" else q, ensure_ascii=False) + "\n"
            for q in records
        )
        write_text_atomic(target / name, text)
