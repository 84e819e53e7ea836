"""Names that become paths: one check, used everywhere a user- or plug-in-given name is joined to --out.

A label (``leakres eval --label``), a method or attack name (a plug-in registers any string) and a
cell name end up as directory or file names under ``--out`` (``cells/<label>/eval.json``,
``models/<method>``, ``<method>/trials``). :func:`check_name` refuses, in one line, a name that is
not a plain file name (empty, ``.``/``..``, a separator, a NUL byte, an absolute path), so
``--label ../../x`` or ``--label /tmp/x`` never writes outside ``--out``; :func:`inside` is the
last guard where a relative path (``ga/attack-probab``) is joined to its root: the result, once
resolved (symlinks followed), must lie under the resolved root.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from leakres_cli.errors import LeakresError

_FORBIDDEN = ("/", "\\", "\x00")


def check_name(name: str, what: str) -> str:
    """``name`` if it is usable as one path component under --out; else a one-line LeakresError
    naming ``what`` (e.g. ``--label``) and why."""
    bad = next((c for c in _FORBIDDEN if c in name), None)
    if not name.strip() or name in (".", "..") or bad is not None:
        why = f"it contains {bad!r}" if bad is not None else "it is not a file name"
        raise LeakresError(
            f"{what} {name!r} cannot name a folder inside --out ({why}); use letters, digits, "
            "'-', '_' or '.'"
        )
    return name


def inside(root: Path, relative: str, what: str = "name") -> Path:
    """``root / relative``, checked to stay inside ``root`` (lexically: no absolute path, no ``..``
    part; and resolved: no symlink leading out); a one-line LeakresError otherwise."""
    parts = PurePosixPath(relative).parts
    if not relative or PurePosixPath(relative).is_absolute() or ".." in parts or "\x00" in relative:
        raise LeakresError(f"{what} {relative!r} would write outside {root}")
    path = root / relative
    resolved_root = root.resolve()
    resolved = path.resolve()
    if resolved != resolved_root and resolved_root not in resolved.parents:
        raise LeakresError(f"{what} {relative!r} would write outside {root} (to {resolved})")
    return path
