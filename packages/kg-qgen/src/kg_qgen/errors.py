"""Errors kg-qgen raises on purpose: bad user input and unknown registry names."""

from __future__ import annotations

__all__ = ["KgQgenError", "KgQgenInputError", "UnknownNameError"]


class KgQgenError(Exception):
    """Base class of the errors this package raises on purpose."""


class UnknownNameError(KgQgenError, KeyError):
    """A registry lookup failed; the message says "did you mean" and lists every known name."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class KgQgenInputError(KgQgenError, ValueError):
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
