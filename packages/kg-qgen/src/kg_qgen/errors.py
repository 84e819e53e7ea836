"""Errors raised on bad user input."""

from __future__ import annotations

__all__ = ["KgQgenInputError"]


class KgQgenInputError(ValueError):
    """Bad input file or record; the message names the file, the line/record and the field."""

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        field: str | None = None,
        record: str | None = None,
    ) -> None:
        self.path, self.line, self.field, self.record = path, line, field, record
        where = []
        if path is not None:
            where.append(str(path))
        if line is not None:
            where.append(f"line {line}")
        if record is not None:
            where.append(f"record {record}")
        if field is not None:
            where.append(f"field '{field}'")
        message = " ".join(str(message).split())  # one line, whatever the message holds
        super().__init__(f"{': '.join([', '.join(where), message]) if where else message}")
