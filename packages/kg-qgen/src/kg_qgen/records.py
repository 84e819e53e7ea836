"""Reading question records (``questions.jsonl``, docs/ARCHITECTURE.md section 1) back in.

``read_records(path)`` returns one dict per non-blank line; anything else (a missing file, a
non-UTF-8 byte, malformed JSON, a line that is not a JSON object) is a one-line
:class:`~kg_qgen.errors.KgQgenInputError` naming the file and the line. Whether the records are
valid questions is :func:`kg_qgen.verify.report.verify_records`' job.
"""

from __future__ import annotations

from pathlib import Path

from kg_qgen.errors import KgQgenInputError
from kg_qgen.textio import iter_utf8_lines, parse_json

__all__ = ["read_records"]


def read_records(path: str | Path, require: tuple[str, ...] = ()) -> list[dict]:
    """The records of a JSONL file; ``require`` names fields that must be strings."""
    p = str(path)
    rows = []
    for n, line in iter_utf8_lines(path, "question file"):  # streamed: fails at the first bad line
        if not line.strip():
            continue
        row = parse_json(line, p, line=n)
        if not isinstance(row, dict):
            raise KgQgenInputError("expected a JSON object", path=p, line=n)
        for key in require:
            if not isinstance(row.get(key), str):
                raise KgQgenInputError("missing or not a string", path=p, line=n, field=key)
        rows.append(row)
    return rows
