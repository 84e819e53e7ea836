"""The forest plot of the paired comparisons between methods (issue 38: "whether two methods
differ", in one figure): one row per (pair of methods, metric), the difference A - B in points as
a dot with its 95% CI as a horizontal bar, a vertical line at 0, the dot filled when significant
after Holm and hollow when not, the Holm p-value and n at the right of each row. The CI is the
comparison's own (not Holm-adjusted), so a bar clear of 0 can carry a hollow dot.

Reads only results.json's ``comparisons`` block (written by ``stages/comparisons.py``, its
sentences rendered by ``outputs/comparisons.py``); computes no test. Written as
``comparisons.{png,pdf}`` beside ``recovery_curves.*`` and shown inline (SVG) in report.html.
matplotlib is optional: absent, :func:`write_comparison_figure` says so on stderr and writes
nothing, and the report keeps the sentences.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FIGURE_NAME = "comparisons"
TITLE = (
    "Paired differences A - B, points, 95% CI (> 0: A forgets better for FQ, "
    "resists recovery better for robustness)"
)


@dataclass(frozen=True)
class Row:
    """One comparison as drawn: differences and bounds in points (x 100 of results.json's)."""

    label: str  # "ga - npo: FQ SH" / "ga - npo: robustness"
    diff: float
    low: float | None
    high: float | None
    significant: bool
    p_holm: float | None
    n: int | None


def _points(x: Any) -> float | None:
    return None if x is None else 100.0 * float(x)


def comparison_rows(results: Mapping[str, Any]) -> list[Row]:
    """The plot's rows, robustness first then FQ type by type (the sentences' order); entries
    without a difference are left out. [] when results.json has no ``comparisons`` block."""
    block = results.get("comparisons")
    if not isinstance(block, Mapping):
        return []
    tagged = [("robustness", e) for e in block.get("robustness") or []]
    for qtype, per_type in (block.get("fq") or {}).items():
        tagged += [(f"FQ {qtype}", e) for e in per_type or []]
    rows = []
    for metric, e in tagged:
        if not isinstance(e, Mapping) or e.get("difference") is None:
            continue
        rows.append(Row(
            label=f"{e.get('a')} - {e.get('b')}: {metric}", diff=100.0 * float(e["difference"]),
            low=_points(e.get("ci_low")), high=_points(e.get("ci_high")),
            significant=bool(e.get("significant")), p_holm=e.get("p_holm"), n=e.get("n"),
        ))  # fmt: skip
    return rows


def _right_text(row: Row) -> str:
    p = "n/a" if row.p_holm is None else f"{row.p_holm:.3f}"
    return f"p = {p} (Holm), n = {row.n if row.n is not None else 'n/a'}"


def forest_figure(rows: list[Row]) -> Any:
    """The matplotlib Figure (Agg) of ``rows``, top row first."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9.0, 1.3 + 0.42 * len(rows)), layout="constrained")
    ax = fig.add_subplot()
    ys = list(range(len(rows)))[::-1]
    for y, r in zip(ys, rows, strict=True):
        if r.low is not None and r.high is not None:
            ax.hlines(y, r.low, r.high, color="C0", linewidth=2)
        face = "C0" if r.significant else "white"
        ax.plot([r.diff], [y], "o", markersize=8, markeredgecolor="C0", markerfacecolor=face)
        ax.annotate(_right_text(r), xy=(1.01, y), xycoords=("axes fraction", "data"),
                    va="center", fontsize=9)  # fmt: skip
    ax.axvline(0, color="grey", linestyle="--", linewidth=1)
    ax.set_yticks(ys, [r.label for r in rows])
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.set_xlabel("difference A - B (points); filled: significant after Holm, hollow: not")
    ax.set_title(TITLE, fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    return fig


def write_comparison_figure(results: Mapping[str, Any], out_dir: Path) -> list[Path]:
    """``OUT_DIR/comparisons.{png,pdf}``; [] (no file, no error) when results.json has no
    comparisons, or without matplotlib (said on stderr)."""
    rows = comparison_rows(results)
    if not rows:
        return []
    try:
        fig = forest_figure(rows)
    except ImportError as exc:
        sys.stderr.write(
            f"comparison figure not written: matplotlib is not installed ({exc}); the report "
            "still lists the comparisons as sentences\n"
        )
        return []
    paths = [Path(out_dir) / f"{FIGURE_NAME}.{ext}" for ext in ("png", "pdf")]
    for path in paths:
        fig.savefig(path, dpi=150)
    return paths


def comparison_svg(results: Mapping[str, Any]) -> str:
    """The same figure as inline SVG text for report.html (text kept as text, escaped by
    matplotlib); "" without comparisons or without matplotlib."""
    rows = comparison_rows(results)
    if not rows:
        return ""
    try:
        import matplotlib

        fig = forest_figure(rows)
    except ImportError:
        return ""
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "leakres"}):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    text = buf.getvalue()
    return text[text.find("<svg") :]
