"""Writing a build: ``save`` (atomic output folder with a manifest) and the output-path checks."""

from __future__ import annotations

import json
import os
import platform
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from kg_qgen.errors import KgQgenInputError
from kg_qgen.keep import Kept, carry_over, check_review, move_back
from kg_qgen.match.base import QUESTION_TYPES

__all__ = ["MANIFEST_FORMAT", "BuildResult", "check_out_dir", "is_kgqgen_output", "save"]

MANIFEST_FORMAT = "kg-qgen/1"


@dataclass
class BuildResult:
    """What :func:`kg_qgen.pipeline.build` returns and :func:`save` writes."""

    questions: list[dict]
    rejects: list[dict]
    shortfall: dict[str, str]
    counts: dict[str, dict[str, Any]]
    facts_forget: list[dict] = field(default_factory=list)
    facts_retain: list[dict] = field(default_factory=list)
    config: dict[str, Any] = field(default_factory=dict)
    source_questions: list[dict] = field(default_factory=list)
    verification: dict[str, Any] | None = None  # verify_records(...).to_dict() of the kept set
    # the retired MT wording filter's report: always None since round four (two-option MT
    # items); the manifest keeps the key for readers of older sets
    mt_wording: dict[str, Any] | None = None
    # the wording choice's report (kg_qgen.wording.VarietyReport)
    wording_variety: dict[str, Any] | None = None


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for pkg in ("kg-qgen", "datasets", "networkx", "click"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = "not installed"
    return out


def _write_jsonl(path: Path, rows: Sequence[dict]) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def is_kgqgen_output(path: Path) -> bool:
    """Whether ``path`` is a folder written by :func:`save` (its manifest says so)."""
    manifest = path / "manifest.json"
    if not path.is_dir() or not manifest.is_file():
        return False
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(data, dict) and data.get("format") == MANIFEST_FORMAT


def check_out_dir(out_dir: str | Path, overwrite: bool = False) -> Path:
    """Refuse an output path before any work is done (and again when saving).

    An existing path is replaced only with ``overwrite`` AND when it is a previous kg-qgen output
    (a folder whose ``manifest.json`` has ``"format": "kg-qgen/1"``): a file, or a folder of
    anything else (notes, the input itself), is never deleted. The parent folder must be
    writable. Every refusal is a one-line :class:`KgQgenInputError`.
    """
    out = Path(out_dir)
    if out.exists() or out.is_symlink():
        if not overwrite:
            raise KgQgenInputError(
                "exists; pass overwrite=True (CLI: --overwrite) to replace a previous kg-qgen "
                "output",
                path=str(out),
            )
        if out.is_symlink() or not is_kgqgen_output(out):
            raise KgQgenInputError(
                "exists and is not a previous kg-qgen output (no kg-qgen manifest.json); "
                "refusing to replace it",
                path=str(out),
            )
    parent = out.parent
    probe = parent
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir() or not os.access(probe, os.W_OK | os.X_OK):
        raise KgQgenInputError(
            f"cannot write here ({probe} is not a writable folder)", path=str(out)
        )
    return out


def save(
    result: BuildResult,
    out_dir: str | Path,
    *,
    overwrite: bool = False,
    meta: dict[str, Any] | None = None,
    kept: Kept | None = None,
) -> Path:
    """Write the dataset to ``out_dir`` atomically.

    Everything is written to a temporary folder next to ``out_dir`` and renamed into place at
    the end, so an interrupted save never leaves a folder that looks complete. Files:
    ``questions.jsonl``, ``rejects.jsonl``, ``facts_forget.jsonl``, ``facts_retain.jsonl``,
    ``source_questions.jsonl`` (when the source has its own questions), ``manifest.json`` and
    ``hf/`` (a ``datasets.DatasetDict`` with one split per non-empty type, ``save_to_disk``).

    ``overwrite`` replaces only what the previous build wrote: every other file of the folder
    (``review.sqlite`` and its annotations, ``quality/``, notes) is carried into the new one
    (:mod:`kg_qgen.keep`); ``kept``, when given, is filled with what was carried and what became
    of the review database.
    """
    out = check_out_dir(out_dir, overwrite)
    kept = kept if kept is not None else Kept()
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    except OSError as err:
        raise KgQgenInputError(f"cannot write here: {err.strerror or err}", path=str(out)) from err
    try:
        files = _write_records(tmp, result)
        _write_hf(tmp, result)
        files.append("hf/")
        manifest = _manifest(result, files, meta)
        (tmp / "manifest.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False))
        if out.exists():
            _replace_previous(out, tmp, result, kept)
        else:
            os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out


def _write_records(tmp: Path, result: BuildResult) -> list[str]:
    """The JSONL files (and ``verify_report.json``) of ``result`` in ``tmp``; their names."""
    _write_jsonl(tmp / "questions.jsonl", result.questions)
    _write_jsonl(tmp / "rejects.jsonl", result.rejects)
    _write_jsonl(tmp / "facts_forget.jsonl", result.facts_forget)
    _write_jsonl(tmp / "facts_retain.jsonl", result.facts_retain)
    files = ["questions.jsonl", "rejects.jsonl", "facts_forget.jsonl", "facts_retain.jsonl"]
    if result.source_questions:
        _write_jsonl(tmp / "source_questions.jsonl", result.source_questions)
        files.append("source_questions.jsonl")
    if result.verification is not None:
        (tmp / "verify_report.json").write_text(
            json.dumps(result.verification, indent=2, ensure_ascii=False)
        )
        files.append("verify_report.json")
    return files


def _write_hf(tmp: Path, result: BuildResult) -> None:
    """``tmp/hf``: a ``datasets.DatasetDict`` with one split per non-empty type."""
    import datasets  # heavy import, only when saving
    from datasets import Dataset, DatasetDict

    splits = {}
    for t in result.config.get("types", QUESTION_TYPES):
        rows = [q for q in result.questions if q["type"] == t]
        if rows:
            splits[t] = Dataset.from_list(rows)
    bars_were_on = datasets.utils.logging.is_progress_bar_enabled()
    datasets.disable_progress_bars()  # one bar per split is noise for a few hundred rows
    try:
        DatasetDict(splits).save_to_disk(str(tmp / "hf"))
    finally:
        if bars_were_on:
            datasets.enable_progress_bars()


def _manifest(result: BuildResult, files: list[str], meta: dict[str, Any] | None) -> dict:
    return {
        "format": MANIFEST_FORMAT,
        "n_questions": len(result.questions),
        "n_rejects": len(result.rejects),
        "counts": result.counts,
        "shortfall": result.shortfall,
        "n_facts_forget": len(result.facts_forget),
        "n_facts_retain": len(result.facts_retain),
        "verified": None if result.verification is None else result.verification["ok"],
        "mt_wording": result.mt_wording,
        "wording_variety": result.wording_variety,
        "config": result.config,
        "seed": result.config.get("seed"),
        "versions": _versions(),
        "files": files,
        **(meta or {}),
    }


def _replace_previous(out: Path, tmp: Path, result: BuildResult, kept: Kept) -> None:
    """Overwrite: move the old output aside first, delete it only at the end, carrying over
    what the old build did not write (review.sqlite, quality/, notes)."""
    if not is_kgqgen_output(out):  # re-checked: it may have changed since the start
        raise KgQgenInputError(
            "is no longer a previous kg-qgen output; refusing to replace it", path=str(out)
        )
    old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
    os.replace(out, old / "d")
    carried: list[str] = []
    try:
        carried = carry_over(old / "d", tmp)
        os.replace(tmp, out)
    except BaseException:
        move_back(tmp, old / "d", carried)
        os.replace(old / "d", out)
        raise
    shutil.rmtree(old, ignore_errors=True)  # only files the old build wrote are left in it
    kept.carried = carried
    check_review(out, {q["id"]: q for q in result.questions}, kept)
