"""Atomic, resumable storage of stage results inside a run directory.

Each finished unit of work (a "cell": base evaluation, one method's unlearning+evaluation, one attack) is a
JSON file written atomically (temp file + ``os.replace``), so a crash or Ctrl-C never leaves a half-written
cell that looks finished. A cell also stores the fingerprint of the configuration that produced it; a
changed configuration invalidates it instead of silently mixing results. And it stores the digest of
its payload (:func:`payload_digest`): a cell edited after it was written (a verdict flipped by hand,
valid JSON) is refused on load in one line ("changed since it was written; delete it to recompute")
instead of being used as is; a cell without a digest (an older leakres wrote it) is recomputed.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from leakres_cli.errors import LeakresError


def fingerprint(obj: Any) -> str:
    """A short stable hash of a JSON-able object (sorted keys), computed over its MASKED form
    (:func:`~leakres_cli.redact.mask_urls`: every credential in a URL replaced by ``***``), so a
    cell's fingerprint cannot be used to check a guessed password offline, and a results.json's
    (masked) config gives its cells' fingerprint back."""
    from leakres_cli.redact import mask_urls

    blob = json.dumps(mask_urls(obj), sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


#: the most methods whose earlier keys :func:`cell_keys` enumerates (2**n - 1 of them)
MAX_LEGACY_METHODS = 10


def cell_keys(config: dict[str, Any]) -> tuple[str, tuple[str, ...]]:
    """(key, earlier keys) of a run's cells from its ``fingerprint_dict()``.

    The key leaves out ``methods``: every cell is one method's (``METHOD/...``) or shared by all
    (questions, base evaluation), so the list of methods changes no cell's content and adding a
    method to a finished run (``--methods ga`` then ``--methods ga,npo``) reuses every cell it
    has. Cells written before (keyed on the whole dict, methods included) stay valid: the earlier
    keys are those of each run of a subsequence of ``methods`` (order kept), so the same run, or
    one with more methods, reuses them rather than recomputing.
    """
    from itertools import combinations

    key = fingerprint({k: v for k, v in config.items() if k != "methods"})
    methods = list(config.get("methods") or ())[:MAX_LEGACY_METHODS]
    earlier = tuple(
        fingerprint({**config, "methods": list(sub)})
        for r in range(1, len(methods) + 1)
        for sub in combinations(methods, r)
    )
    return key, earlier


def digest_key(weights: dict[str, Any]) -> str:
    """The short key of a ``{role: digest}`` record (:mod:`leakres_cli.models.weights`) that a cell stores:
    the content hashes only (a model moved elsewhere with the same bytes keeps its cells; one with
    no local copy is keyed on its name)."""
    return fingerprint(
        {role: d.get("sha256") or f"name:{d.get('model')}" for role, d in weights.items()}
    )


def payload_digest(payload: Any) -> str:
    """sha256 of a cell payload as JSON reads it back (sorted keys, no spaces): what a cell
    carries, so a payload edited after it was written (valid JSON or not) is caught on load."""
    canonical = json.loads(json.dumps(payload, default=str))  # tuples, non-str keys: as stored
    blob = json.dumps(canonical, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(blob).hexdigest()


def _umask() -> int:
    # os.umask can only be read by setting it; done once, at import, before any thread starts.
    mask = os.umask(0)
    os.umask(mask)
    return mask


# mkstemp creates 0600 files; every file a run writes gets the mode open() would give it instead
# (0644 under the usual umask 022), the same as the plots matplotlib writes.
FILE_MODE = 0o666 & ~_umask()


def move_into_place(src: Path | str, dest: Path) -> None:
    """``os.replace`` (atomic on one file system) with ``dest``'s directory created: the one place
    the CLI puts a finished file or directory where a reader may look. OSError propagates."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    os.replace(src, dest)


RESUME_HINT = "; finished cells are kept, rerun the same command to resume"


def _write_atomic(path: Path, write: Callable[[IO[str]], None], hint: str = RESUME_HINT) -> None:
    """Write through a unique temp file in the same directory, then ``os.replace`` it into place.

    A failure (disk full, a bad value) leaves the previous file untouched and no temp file behind; an
    OSError becomes a one-line LeakresError that names the file (then ``hint``: a run's outputs say
    its cells are kept; a report, which has no cells, passes ``hint=""``).
    """
    tmp: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            write(fh)
            fh.flush()
            os.fchmod(fh.fileno(), FILE_MODE)
        move_into_place(tmp, path)
        tmp = None
    except OSError as exc:
        raise LeakresError(f"cannot write {path}: {exc.strerror or exc}{hint}") from exc
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)


def write_json_atomic(path: Path, data: Any) -> None:
    def dump(fh: IO[str]) -> None:
        json.dump(data, fh, indent=2, sort_keys=False, default=str)
        fh.write("\n")

    _write_atomic(path, dump)


def write_text_atomic(path: Path, text: str, hint: str = RESUME_HINT) -> None:
    _write_atomic(path, lambda fh: fh.write(text), hint)


def write_dir_atomic(target: Path, fill: Callable[[Path], None]) -> None:
    """Fill a temp directory next to ``target``, then move it into place (replacing ``target``).

    A failure or Ctrl-C while filling leaves no partial directory under ``target``'s name.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}."))
    try:
        fill(tmp)
        if target.exists():
            shutil.rmtree(target)
        move_into_place(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


class CellStore:
    """Finished cells of one run directory, keyed by a relative name like ``ga/attack-probab``."""

    def __init__(
        self,
        root: Path,
        config_fingerprint: str,
        weights: Callable[[], dict[str, Any]] | None = None,
        accepted: tuple[str, ...] = (),
    ) -> None:
        """``weights()``: the content hashes of the models the cells score
        (:mod:`leakres_cli.models.weights`), computed on first use; a cell written for other weights
        (a model retrained in place) is stale and recomputed. None: keyed on the config only.
        ``accepted``: earlier keys of the same cells (:func:`cell_keys`), read but never written."""
        self.root = root / "cells"
        self.config_fingerprint = config_fingerprint
        self.accepted = accepted
        self._weights_fn = weights
        self._weights: dict[str, Any] | None = None
        self._stale_said = False

    def weights(self) -> dict[str, Any] | None:
        """The ``{role: digest}`` record of the scored models (None: not keyed on weights)."""
        if self._weights is None and self._weights_fn is not None:
            self._weights = self._weights_fn()
        return self._weights

    def weights_key(self) -> str | None:
        weights = self.weights()
        return None if weights is None else digest_key(weights)

    def _path(self, name: str) -> Path:
        from leakres_cli.config.paths import inside

        return inside(self.root, f"{name}.json", "cell")

    def get(self, name: str) -> Any | None:
        """The stored payload of a finished cell, or None if absent or produced by another config."""
        path = self._path(name)
        if not path.exists():
            return None
        try:
            cell = json.loads(path.read_bytes().decode("utf-8"))
        except (OSError, ValueError, RecursionError) as exc:  # ValueError: bad UTF-8 or JSON
            raise LeakresError(f"corrupt cell file {path}: {exc}; delete it to recompute") from exc
        if not isinstance(cell, dict) or "config_fingerprint" not in cell or "payload" not in cell:
            raise LeakresError(
                f"corrupt cell file {path}: not a leakres cell (needs 'config_fingerprint' and "
                "'payload'); delete it to recompute"
            )
        known = cell["config_fingerprint"] == self.config_fingerprint
        known = known or cell["config_fingerprint"] in self.accepted
        if not known or "payload_digest" not in cell:
            return None  # another configuration's, or written before cells had digests: recompute
        if cell["payload_digest"] != payload_digest(cell["payload"]):
            raise LeakresError(
                f"cell {path} changed since it was written (its payload no longer matches its "
                "digest); delete it to recompute"
            )
        key = self.weights_key()
        if key is not None and cell.get("weights") != key:
            if not self._stale_said:  # once per run: every cell of the old weights is recomputed
                self._stale_said = True
                sys.stderr.write(
                    f"{path}: written for other model weights (retrained in place?); recomputing\n"
                )
            return None
        return cell["payload"]

    def put(self, name: str, payload: Any) -> None:
        cell = {
            "config_fingerprint": self.config_fingerprint,
            "payload_digest": payload_digest(payload),
            "payload": payload,
        }
        key = self.weights_key()
        if key is not None:
            cell["weights"] = key
        write_json_atomic(self._path(name), cell)

    def cached(
        self,
        name: str,
        compute: Callable[[], Any],
        *,
        reuse: Callable[[Any], Any] | None = None,
        valid: Callable[[Any], bool] | None = None,
        keep: Callable[[Any], bool] | None = None,
    ) -> Any:
        """The finished cell ``name``, else ``compute()`` stored (crash-safe :meth:`put`) and returned.

        ``valid(payload)``: whether a stored payload still answers (False: recompute it).
        ``reuse(payload)``: what a stored payload becomes on reuse (re-judging its unjudged verdicts).
        ``keep(payload)``: whether a computed payload may be stored (not while a judge failed).
        """
        stored = self.get(name)
        if stored is not None and (valid is None or valid(stored)):
            return stored if reuse is None else reuse(stored)
        payload = compute()
        if keep is None or keep(payload):
            self.put(name, payload)
        return payload


def check_writable_dir(path: Path) -> Path | None:
    """Create ``path`` if needed and prove it is writable, or raise a one-line LeakresError.

    Returns the topmost directory this call created (None if ``path`` existed), so the caller can
    remove it again when the run fails before any work. The probe is a unique temp file, so two runs
    probing at once never collide.
    """
    created = None
    for candidate in (path, *path.parents):
        if candidate.exists():
            break
        created = candidate
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path, prefix=".leakres-write-test."):
            pass
    except OSError as exc:
        raise LeakresError(
            f"output directory {path} is not writable: {exc.strerror or exc}"
        ) from exc
    return created
