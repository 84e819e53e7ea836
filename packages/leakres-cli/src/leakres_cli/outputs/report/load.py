"""Reading a run directory for the report, defensively.

``results.json`` is required (a report of nothing would mislead); every other file is optional:
``cells/questions.json``, ``cells/base.json``, ``cells/<method>/eval.json``,
``cells/<method>/attack-<name>.json``, ``cells/<method>/unlearn.json``. A cell written by another
configuration than the one in results.json (its fingerprint differs), or changed since it was
written (its payload digest differs), is left out with a warning, as the pipeline itself would ignore it. Unknown fields are ignored and missing ones
become "n/a" in the page, so results written by a newer or older leakres still render.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from leakres_cli.errors import LeakresError
from leakres_cli.scale.store import cell_keys, payload_digest

__all__ = ["RunData", "load_run"]


@dataclass
class RunData:
    path: Path
    name: str
    results: dict[str, Any]
    questions: dict[str, dict[str, Any]] = field(default_factory=dict)
    base: dict[str, Any] = field(default_factory=dict)
    evals: dict[str, dict[str, Any]] = field(default_factory=dict)  # method -> eval cell
    attacks: dict[str, dict[str, dict[str, Any]]] = field(
        default_factory=dict
    )  # method -> attack -> cell
    unlearn: dict[str, dict[str, Any]] = field(default_factory=dict)  # method -> unlearn record
    warnings: list[str] = field(default_factory=list)

    @property
    def methods(self) -> list[str]:
        methods = self.results.get("methods")
        return list(methods) if isinstance(methods, dict) else []

    @property
    def config(self) -> dict[str, Any]:
        cfg = self.results.get("config")
        return cfg if isinstance(cfg, dict) else {}


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise LeakresError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise LeakresError(f"{path}: not valid JSON: {exc}") from exc


def load_run(path: str | Path, name: str | None = None) -> RunData:
    """The results and the per-question cells of one ``leakres run --out`` directory."""
    root = Path(path)
    results_path = root / "results.json"
    if not results_path.is_file():
        raise LeakresError(
            f"{results_path}: not found (is {root} a `leakres run --out` directory?)"
        )
    results = _read_json(results_path)
    if not isinstance(results, dict):
        raise LeakresError(f"{results_path}: expected a JSON object at the top level")
    run = RunData(root, name or root.resolve().name, results)
    cfg = results.get("config")
    expected = _keys(cfg) if isinstance(cfg, dict) else None
    cells = root / "cells"
    if not cells.is_dir():
        run.warnings.append(
            "no cells/ folder: the per-question drill-down and loss curves are missing"
        )
        return run

    cell = functools.partial(_cell, run, cells, expected)
    _fill(run, cells, cell)
    if not run.questions:
        run.warnings.append("cells/questions.json missing or empty: questions cannot be shown")
    return run


def _keys(cfg: dict[str, Any]) -> frozenset[str]:
    """Every key a cell of this config may carry (the run's and the earlier ones, ``cell_keys``)."""
    key, earlier = cell_keys(cfg)
    return frozenset((key, *earlier))


def _cell(
    run: RunData, cells: Path, expected: frozenset[str] | None, rel: str
) -> dict[str, Any] | None:
    """The payload of ``cells/REL.json``; None (with a warning) when it is missing, unreadable or
    written by another configuration than results.json."""
    p = cells / f"{rel}.json"
    if not p.is_file():
        return None
    try:
        data = _read_json(p)
    except LeakresError as exc:
        run.warnings.append(f"{exc} - left out")
        return None
    if not isinstance(data, dict) or not isinstance(data.get("payload"), dict):
        run.warnings.append(f"{p}: no 'payload' object - left out")
        return None
    if expected is not None and data.get("config_fingerprint") not in expected:
        run.warnings.append(f"{p}: written by another configuration than results.json - left out")
        return None
    if "payload_digest" in data and data["payload_digest"] != payload_digest(data["payload"]):
        run.warnings.append(f"{p}: changed since it was written (digest mismatch) - left out")
        return None
    return data["payload"]


def _fill(run: RunData, cells: Path, cell: Callable[[str], dict[str, Any] | None]) -> None:
    """The questions and, per method, the eval, unlearn and attack cells into ``run``."""
    qcell = cell("questions")
    if qcell is not None:
        qs = qcell.get("questions")
        for q in qs if isinstance(qs, list) else []:
            if isinstance(q, dict) and isinstance(q.get("id"), str):
                run.questions[q["id"]] = q
    run.base = cell("base") or {}
    for method in run.methods:
        ev = cell(f"{method}/eval")
        if ev is not None:
            run.evals[method] = ev
        rec = cell(f"{method}/unlearn")
        if rec is not None:
            run.unlearn[method] = rec
        for p in (
            sorted((cells / method).glob("attack-*.json")) if (cells / method).is_dir() else []
        ):
            attack = p.stem.removeprefix("attack-")
            payload = cell(f"{method}/{p.stem}")
            if payload is not None:
                run.attacks.setdefault(method, {})[attack] = payload
