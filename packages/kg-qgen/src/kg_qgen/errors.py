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
    ) -> None:
        self.path, self.line, self.field = path, line, field
        where = []
        if path is not None:
            where.append(str(path))
        if line is not None:
            where.append(f"line {line}")
        if field is not None:
            where.append(f"field '{field}'")
        super().__init__(f"{': '.join([', '.join(where), message]) if where else message}")
