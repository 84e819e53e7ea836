"""The unlearning-trajectory figure for a paper (``--eval-every K``): per method, FQ per question
type against optimizer steps (left) beside retain accuracy with its 95% CI band (right), written
as ``plots/trajectory_METHOD.png`` and ``.pdf`` (matplotlib, Agg backend) from results.json's
``methods.METHOD.trajectory`` (:mod:`leakres_cli.stages.trajectory`). A method without a
trajectory gets no file; an undefined point (e.g. a type at chance) is left out of its line."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

FORMATS = ("png", "pdf")


def trajectory_plots(results: Mapping[str, Any], out_dir: Path) -> list[Path]:
    """Every method's trajectory figure under ``out_dir``; returns the written files."""
    written: list[Path] = []
    for method, block in (results.get("methods") or {}).items():
        trajectory = block.get("trajectory") if isinstance(block, Mapping) else None
        if isinstance(trajectory, Mapping) and trajectory.get("points"):
            written += _plot(str(method), trajectory, out_dir)
    return written


def _values(points: list[Mapping[str, Any]], get: Any) -> tuple[list, list, list, list]:
    """(steps, values, CI lows, CI highs) of the points whose metric is defined."""
    rows = [(p["step"], get(p)) for p in points]
    rows = [(s, m) for s, m in rows if isinstance(m, Mapping) and m.get("value") is not None]
    lows = [m.get("ci_low", m["value"]) for _, m in rows]
    highs = [m.get("ci_high", m["value"]) for _, m in rows]
    return [s for s, _ in rows], [m["value"] for _, m in rows], lows, highs


def _plot(method: str, trajectory: Mapping[str, Any], out_dir: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")  # headless: never needs a display
    import matplotlib.pyplot as plt

    points = [p for p in trajectory["points"] if isinstance(p, Mapping)]
    types = list(dict.fromkeys(t for p in points for t in (p.get("fq") or {})))
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6), sharex=True)
    undefined = []
    for qtype in types:
        steps, values, _, _ = _values(points, lambda p, t=qtype: (p.get("fq") or {}).get(t))
        if steps:
            left.plot(steps, [100 * v for v in values], marker="o", markersize=3, label=qtype)
        else:
            undefined.append(qtype)
    title = f"{method}: FQ per type"
    if undefined:  # e.g. the base model at chance: FQ undefined at every point
        title += f"\n(undefined, no signal: {', '.join(undefined)})"
    left.set(xlabel="optimizer step", ylabel="Forget Quality (%)", title=title)
    left.axhline(0, color="#999", linewidth=0.8)
    if left.lines:
        left.legend(fontsize=8, ncol=2)
    steps, values, lows, highs = _values(points, lambda p: p.get("retain_acc"))
    right.plot(steps, [100 * v for v in values], marker="o", markersize=3, color="#333")
    right.fill_between(steps, [100 * v for v in lows], [100 * v for v in highs], alpha=0.2,
                       color="#333", label="95% CI")  # fmt: skip
    right.set(xlabel="optimizer step", ylabel="accuracy (%)", title=f"{method}: retain accuracy")
    right.set_ylim(-2, 102)
    right.legend(fontsize=8)
    sizes = ", ".join(f"{k} {v}" for k, v in (trajectory.get("n") or {}).items())
    fig.suptitle(f"every {trajectory.get('eval_every')} steps; questions: {sizes}", fontsize=8)
    fig.tight_layout()
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", method) or "method"
    paths = []
    for ext in FORMATS:
        path = out_dir / f"trajectory_{stem}.{ext}"
        fig.savefig(path, format=ext, dpi=150, bbox_inches="tight")
        paths.append(path)
    plt.close(fig)
    return paths
