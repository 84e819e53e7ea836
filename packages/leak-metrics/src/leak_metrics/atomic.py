"""All-or-nothing file writes: the one atomic-write helper of this package.

A reader (or a crash, Ctrl-C or a full disk mid-write) never sees half a file: the data goes to a
temporary file in the destination's folder (same file system, so the rename is atomic) and
replaces the destination only once it is completely written; on any error the temporary file is
removed and the destination is left as it was.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any


@contextlib.contextmanager
def atomic_write(
    path: Path, mode: str = "w", *, suffix: str = ".tmp", durable: bool = False
) -> Iterator[IO[Any]]:
    """Yield a handle whose contents replace ``path`` when the ``with`` block exits cleanly.

    ``mode`` is ``"w"`` (UTF-8 text) or ``"wb"``. ``durable=True`` also fsyncs before the rename
    (downloads: a power cut must not leave a renamed but empty file); caches skip it for speed.
    An exception raised inside the block aborts the write and propagates.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write mode must be 'w' or 'wb', not {mode!r}")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=suffix)
    try:
        encoding = None if mode == "wb" else "utf-8"
        with os.fdopen(fd, mode, encoding=encoding) as handle:
            yield handle
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
