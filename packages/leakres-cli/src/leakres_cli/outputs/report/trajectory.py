"""The report's unlearning-trajectory section (``leakres run --eval-every K``): per method, FQ
per question type against optimizer steps beside retain accuracy (two inline SVG charts) and the
points as a table, read from results.json's ``methods.METHOD.trajectory``
(:mod:`leakres_cli.stages.trajectory`). Methods without one are left out; no trajectory at all
gives an empty list and no section."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from leakres_cli.outputs.report import svg
from leakres_cli.outputs.report.values import dig, fmt, metric, num


def trajectory_section(
    name: str, methods: Sequence[str], mdata: Mapping[str, Mapping[str, Any]], types: Sequence[str]
) -> list[dict[str, Any]]:
    """One block per method with a trajectory: ``method``, ``label``, ``n`` (questions per
    type), ``fq_svg``, ``retain_svg``, ``types`` and ``rows`` (one per point)."""
    blocks = []
    for m in methods:
        block = mdata[m].get("trajectory")
        points = block.get("points") if isinstance(block, Mapping) else None
        if not isinstance(points, list):
            continue
        points = [p for p in points if isinstance(p, Mapping) and num(p.get("step")) is not None]
        shown = [t for t in types if any(isinstance(dig(p, "fq", t), Mapping) for p in points)]
        fq_series = [(f"FQ {t}", _series(points, "fq", t)) for t in shown]
        retain = [("retain accuracy", _series(points, "retain_acc"))]
        rows = [{
            "step": fmt(p.get("step")), "source": fmt(p.get("source")),
            "loss": f"{p['loss']:.4g}" if num(p.get("loss")) is not None else "n/a",
            "fq": {t: metric(dig(p, "fq", t)) for t in shown},
            "retain": metric(p.get("retain_acc")),
        } for p in points]  # fmt: skip
        blocks.append({
            "method": m, "label": fmt(block.get("label")), "types": shown, "rows": rows,
            "n": ", ".join(f"{k} {v}" for k, v in (block.get("n") or {}).items()),
            "fq_svg": svg.line_chart(fq_series, label=f"{name}: {m} FQ per type by step",
                                     x_label="optimizer step", y_label="Forget Quality"),
            "retain_svg": svg.line_chart(retain, label=f"{name}: {m} retain accuracy by step",
                                         x_label="optimizer step", y_label="retain accuracy"),
        })  # fmt: skip
    return blocks


def _series(points: Sequence[Mapping[str, Any]], *keys: str) -> list[tuple[float, float]]:
    """(step, value) of every point whose metric at ``keys`` is defined."""
    out = []
    for p in points:
        value = metric(dig(p, *keys)).value
        if value is not None:
            out.append((float(p["step"]), value))
    return out
