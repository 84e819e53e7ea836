"""One `leakres run` per output directory at a time: an OS file lock on ``OUT/.leakres.lock``.

``fcntl.flock`` is released by the kernel when the holding process dies (even by SIGKILL), so a crashed
run never leaves a stale lock behind; the lock file itself stays (deleting it would let two runs lock two
different inodes of the same name). While held it records who holds it (pid, host, start time) so a
second run can say whom it is waiting for.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from pathlib import Path
from types import TracebackType

from leakres_cli.errors import LeakresError

LOCK_NAME = ".leakres.lock"


def cell_lock_name(cell_id: str) -> str:
    """The lock file of one `leakres run --cell ID` job: cells of one grid run side by side (a SLURM
    array), each writing only its own cells, so each locks only itself."""
    return f".leakres-cell-{cell_id.replace('/', '__')}.lock"


class RunLock:
    """Exclusive, non-blocking lock of a run directory; use as a context manager.

    ``shared=True`` takes the lock shared instead: a `leakres run --cell` job holds ``--out``'s
    run lock shared (beside its own cell lock, exclusive), so cell jobs run side by side while a
    whole run, which holds it exclusively, excludes them all, and they it. A shared holder
    records nothing in the file (several may hold it at once).
    """

    def __init__(self, out_dir: Path, name: str = LOCK_NAME, *, shared: bool = False) -> None:
        self.path = out_dir / name
        self.shared = shared
        self._fd: int | None = None

    def acquire(self) -> None:
        try:
            fd = os.open(
                self.path, os.O_RDWR | os.O_CREAT, 0o666
            )  # umask applies, as to every output
        except OSError as exc:
            raise LeakresError(
                f"cannot create lock file {self.path}: {exc.strerror or exc}"
            ) from exc
        try:
            fcntl.flock(fd, (fcntl.LOCK_SH if self.shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _describe_holder(fd)
            os.close(fd)
            raise LeakresError(
                f"output directory {self.path.parent} is in use by another leakres run ({holder}); "
                "wait for it to finish or choose another --out"
            ) from None
        except OSError as exc:
            os.close(fd)
            raise LeakresError(f"cannot lock {self.path}: {exc.strerror or exc}") from exc
        if self.shared:
            self._fd = fd
            return
        holder = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(holder) + "\n").encode(), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is None:
            return
        try:
            if not self.shared:  # no holder any more; the file stays (see module docstring)
                os.ftruncate(self._fd, 0)
        finally:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


def _describe_holder(fd: int) -> str:
    """'pid 123 on host h since 2026-...' from the lock file, or a note that it does not say."""
    try:
        raw = os.pread(fd, 4096, 0).decode("utf-8", "replace")
        info = json.loads(raw)
        return f"pid {int(info['pid'])} on host {info['host']} since {info['started']}"
    except (OSError, ValueError, KeyError, TypeError):
        return "holder unknown: `leakres run --cell` jobs, or a run writing the lock file"


def remove_unused(out_dir: Path, created: Path | None, lock_name: str = LOCK_NAME) -> None:
    """Remove the directories this run created if nothing but its lock file went into them."""
    if created is None or not out_dir.is_dir():
        return
    empty_dirs = {p.name for p in out_dir.iterdir() if p.is_dir() and not any(p.iterdir())}
    if {p.name for p in out_dir.iterdir()} - {lock_name, LOCK_NAME} - empty_dirs:
        return  # work started: keep everything (a rerun resumes from it)
    for name in empty_dirs:  # e.g. the llm judge's judge-cache/, made before its endpoint failed
        (out_dir / name).rmdir()
    for name in {lock_name, LOCK_NAME}:  # a --cell job's own lock and the run lock it shared
        (out_dir / name).unlink(missing_ok=True)
    for directory in (out_dir, *out_dir.parents):
        try:
            directory.rmdir()
        except OSError:
            break
        if directory == created:
            break
