"""`leakres eval`'s input files (``--forget``/``--retain`` facts, ``--questions``), read one line at a time.

Every failure is a one-line :class:`~leakres_cli.errors.LeakresError` naming the file and line,
raised at the first bad line and before any model work: a byte that is not UTF-8, a line that is
not JSON, a number JSON cannot hold (a 5000-digit integer), nesting too deep for the parser, a line
over :data:`MAX_LINE_BYTES`, a missing field; in a question set a record without its ``target``
fact and an id given twice (both lines named). A file is never read whole: a 200 MB junk file
fails at its first line, in constant memory.

Facts files: JSONL, one fact per line, either ``{"subject", "relation", "object"}`` (labels, as
kg-qgen's ``target``) or ``{"id": "SH-000012"}`` / a bare JSON string ``"SH-000012"``, the id of
an SH question of the ``--questions`` set.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from leakres_cli.errors import LeakresError

#: the longest line read (a question record is a few KB; this bounds a junk file's cost)
MAX_LINE_BYTES = 16 * 1024 * 1024
FACT_FIELDS = ("subject", "relation", "object")
QUESTION_FIELDS = ("id", "type", "question", "answer")


def jsonl_rows(path: Path, what: str) -> Iterator[tuple[int, Any]]:
    """(line number, parsed value) of each non-blank line of ``path``, one line at a time."""
    try:
        fh = path.open("rb")
    except OSError as exc:
        raise LeakresError(f"cannot read {what} {path}: {exc.strerror or exc}") from exc
    with fh:
        n = 0
        while raw := fh.readline(MAX_LINE_BYTES + 1):
            n += 1
            if len(raw) > MAX_LINE_BYTES:
                raise LeakresError(f"{path}, line {n}: longer than {MAX_LINE_BYTES} bytes")
            yield n, _parse(raw, path, n)


def _parse(raw: bytes, path: Path, n: int) -> Any:
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LeakresError(
            f"{path}, line {n}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at column "
            f"{exc.start + 1})"
        ) from None
    if not line.strip():
        return None
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        raise LeakresError(f"{path}, line {n}: not JSON ({exc.msg})") from None
    except RecursionError:
        raise LeakresError(f"{path}, line {n}: JSON nested too deeply") from None
    except ValueError as exc:  # e.g. an integer of more than 4300 digits
        reason = str(exc).split(";")[0].split(": ")[0]
        raise LeakresError(f"{path}, line {n}: unusable JSON ({reason})") from None


def read_facts(path: str | Path) -> list[dict[str, str]]:
    """The facts of a facts file (module docstring for the format)."""
    p = Path(path)
    facts: list[dict[str, str]] = []
    for n, row in jsonl_rows(p, "facts file"):
        if row is None:
            continue
        if isinstance(row, str):
            row = {"id": row}
        if not isinstance(row, dict):
            raise LeakresError(f"{p}, line {n}: expected an object or an id string")
        if "id" in row and isinstance(row["id"], str):
            facts.append({"id": row["id"]})
            continue
        for key in FACT_FIELDS:
            if not isinstance(row.get(key), str) or not row[key].strip():
                raise LeakresError(f"{p}, line {n}: field '{key}' must be a non-empty string")
        facts.append({k: row[k] for k in FACT_FIELDS})
    if not facts:
        raise LeakresError(f"{p}: no facts")
    return facts


def question_set_file(path: str | Path) -> Path:
    """The questions.jsonl of ``--questions`` (a kg-qgen set folder, or the file itself)."""
    p = Path(path)
    qpath = p / "questions.jsonl" if p.is_dir() else p
    if not qpath.is_file():
        raise LeakresError(f"--questions {path}: no questions.jsonl (not a kg-qgen set folder?)")
    return qpath


def read_question_set(path: str | Path) -> list[dict[str, Any]]:
    """The records of a kg-qgen question set: each with string ``id``/``type``/``question``/
    ``answer`` and a ``target`` fact (the fact it reaches), every id once."""
    qpath = question_set_file(path)
    records: list[dict[str, Any]] = []
    first_line: dict[str, int] = {}
    for n, row in jsonl_rows(qpath, "question set"):
        if row is None:
            continue
        where = f"--questions {qpath}, line {n}"
        if not isinstance(row, dict):
            raise LeakresError(f"{where}: expected a JSON object")
        for key in QUESTION_FIELDS:
            if not isinstance(row.get(key), str):
                raise LeakresError(f"{where}: field '{key}' is missing or not a string")
        target = row.get("target")
        if not isinstance(target, dict) or not all(
            isinstance(target.get(k), str) for k in FACT_FIELDS
        ):
            raise LeakresError(
                f"{where}: field 'target' must be the fact the question reaches "
                '({"subject", "relation", "object"} strings)'
            )
        if row["id"] in first_line:
            raise LeakresError(
                f"--questions {qpath}: id {row['id']!r} on line {first_line[row['id']]} and "
                f"again on line {n}; ids must be unique"
            )
        first_line[row["id"]] = n
        records.append(row)
    return records
