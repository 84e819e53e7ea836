"""Reading input files safely: UTF-8 with the line of a bad byte, JSON with one error type.

Every reader of kg-qgen goes through these so that any input gives either a result or a one-line
:class:`~kg_qgen.errors.KgQgenInputError` naming the file (and line), never another exception.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kg_qgen.errors import KgQgenInputError

__all__ = ["MAX_LINE_BYTES", "decode_utf8", "iter_utf8_lines", "parse_json", "read_utf8"]

#: the longest line a line reader accepts (a record is a few KB; this bounds a junk file's cost)
MAX_LINE_BYTES = 16 * 1024 * 1024


def decode_utf8(raw: bytes, path: str) -> str:
    """``raw`` as UTF-8 text; a bad byte is an error naming its line."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        raise KgQgenInputError(
            f"not UTF-8 text (byte 0x{raw[err.start]:02x} at offset {err.start})",
            path=path,
            line=line,
        ) from err


def _read_error(err: OSError, what: str, p: Path) -> KgQgenInputError:
    """The input error naming ``p`` for ``err``, raised opening or reading it: not found, a
    directory, or any other OS error with its message."""
    if isinstance(err, FileNotFoundError):
        return KgQgenInputError(f"{what} not found", path=str(p))
    if isinstance(err, IsADirectoryError):
        return KgQgenInputError(f"{what} is a directory, not a file", path=str(p))
    return KgQgenInputError(f"cannot read {what}: {err.strerror or err}", path=str(p))


def read_utf8(path: str | Path, what: str = "file") -> str:
    """The UTF-8 text of ``path`` (a missing file or a bad byte is a KgQgenInputError)."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as err:
        raise _read_error(err, what, p) from err
    return decode_utf8(raw, str(p))


def iter_utf8_lines(path: str | Path, what: str = "file") -> Iterator[tuple[int, str]]:
    """(1-based line number, text) of each line of ``path``, read one line at a time: a bad byte
    fails at its line before the rest of the file is read (a 200 MB junk file costs one line),
    and so does a line over :data:`MAX_LINE_BYTES`. Errors as :func:`read_utf8`'s."""
    p = Path(path)
    try:
        fh = p.open("rb")
    except OSError as err:
        raise _read_error(err, what, p) from err
    with fh:
        n = 0
        while raw := fh.readline(MAX_LINE_BYTES + 1):
            n += 1
            if len(raw) > MAX_LINE_BYTES:
                raise KgQgenInputError(
                    f"line longer than {MAX_LINE_BYTES} bytes", path=str(p), line=n
                )
            try:
                yield n, raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise KgQgenInputError(
                    f"not UTF-8 text (byte 0x{raw[err.start]:02x} at column {err.start + 1})",
                    path=str(p),
                    line=n,
                ) from err


def parse_json(text: str, path: str, line: int | None = None) -> Any:
    """``json.loads`` whose every failure (syntax, huge numbers, deep nesting) is one error."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        at = line if line is not None else err.lineno
        raise KgQgenInputError(f"malformed JSON: {err.msg}", path=path, line=at) from err
    except (ValueError, RecursionError) as err:
        raise KgQgenInputError(f"malformed JSON: {err}", path=path, line=line) from err
