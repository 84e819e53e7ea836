"""The "ideal triangle" radar (Forget Quality, Robustness, Utility) and an FQ heatmap.

Input rows for :func:`ideal_triangle_plots`: ``{"model", "dataset", "method", "forget_quality",
"robustness", "utility"}`` with each metric a ``MetricValue`` or its dict. One radar per (model,
dataset), one polygon per method; an undefined vertex is drawn at the centre with a hollow marker
and the legend names the undefined axis. An optional ``"note"`` (str) per row is added to the
method's legend entry (e.g. which types FQ leaves out, which ratio the utility is). Files are written as PNG and SVG with the Agg backend.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # headless: never needs a display
import matplotlib.pyplot as plt
import numpy as np

from leak_metrics.chance import no_signal
from leak_metrics.datatypes import MetricValue
from leak_metrics.report.tables import TYPE_ORDER, _ordered

AXES = (("forget_quality", "Forget Quality"), ("robustness", "Robustness"), ("utility", "Utility"))
FORMATS = ("png", "svg")


def _as_metric(value: Any, where: str) -> MetricValue:
    if isinstance(value, MetricValue):
        return value
    if isinstance(value, Mapping):
        return MetricValue.from_dict(value)
    raise ValueError(f"{where}: expected a MetricValue or its dict, got {value!r}")


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "plot"


def _save(fig: Any, stem: Path, formats: Sequence[str] = FORMATS) -> list[Path]:
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = []
    for fmt in formats:
        # Not with_suffix: a stem like "triangle_SmolLM2-1.7B-Instruct" would lose ".7B-Instruct".
        path = stem.with_name(f"{stem.name}.{fmt}")
        fig.savefig(path, format=fmt, dpi=150, bbox_inches="tight")
        paths.append(path)
    plt.close(fig)
    return paths


def radar_chart(
    methods: Mapping[str, Mapping[str, Any]], title: str, out_stem: str | os.PathLike[str]
) -> list[Path]:
    """One radar: ``methods[name] = {"forget_quality", "robustness", "utility"}`` (metrics), and an
    optional ``"note"`` for the legend.

    The radial axis spans [min(0, lowest value), 1] so negative FQ stays visible.
    """
    angles = [2 * math.pi * i / len(AXES) for i in range(len(AXES))]
    fig, ax = plt.subplots(figsize=(5.5, 5.5), subplot_kw={"projection": "polar"})
    ax.set_theta_offset(math.pi / 2)  # Forget Quality on top
    metrics_by_method = {
        method: {key: _as_metric(values.get(key), f"method '{method}', '{key}'") for key, _ in AXES}
        for method, values in methods.items()
    }
    defined = [
        float(m.value)
        for per_axis in metrics_by_method.values()
        for m in per_axis.values()
        if m.value is not None
    ]
    centre = min(0.0, math.floor(min(defined, default=0.0) * 10) / 10)
    for index, (method, per_axis) in enumerate(metrics_by_method.items()):
        color = plt.cm.tab10(index % 10)
        values = [
            float(per_axis[key].value) if per_axis[key].value is not None else centre
            for key, _ in AXES
        ]
        missing = [label for key, label in AXES if per_axis[key].value is None]
        closed_angles = [*angles, angles[0]]
        closed_values = [*values, values[0]]
        label = method + (f" (n/a: {', '.join(missing)})" if missing else "")
        note = methods[method].get("note")
        label += f"\n{note}" if note else ""
        ax.plot(closed_angles, closed_values, color=color, linewidth=2, label=label)
        ax.fill(closed_angles, closed_values, color=color, alpha=0.12)
        for angle, value, (_, axis_label) in zip(angles, values, AXES, strict=True):
            hollow = axis_label in missing
            ax.plot(
                angle,
                value,
                "o",
                color=color,
                markerfacecolor="white" if hollow else color,
                markersize=6,
            )
    ax.set_xticks(angles)
    ax.set_xticklabels([label for _, label in AXES], fontsize=11)
    ax.set_ylim(centre, 1.0)
    ax.set_rlabel_position(60)  # radial labels between two axes, clear of the axis names
    ax.set_title(title, fontsize=12, pad=18)
    # below the chart: a legend note (excluded types, utility basis) may be a long line
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.08), fontsize=9)
    return _save(fig, Path(out_stem))


def ideal_triangle_plots(
    rows: Sequence[Mapping[str, Any]], out_dir: str | os.PathLike[str]
) -> list[Path]:
    """One radar per (model, dataset) under ``out_dir``; returns every written file."""
    groups: dict[tuple[str, str], dict[str, Mapping[str, Any]]] = {}
    for index, row in enumerate(rows):
        for field in ("model", "dataset", "method", *(k for k, _ in AXES)):
            if field not in row:
                raise ValueError(f"row {index}: missing field '{field}'")
        groups.setdefault((str(row["model"]), str(row["dataset"])), {})[str(row["method"])] = row
    written: list[Path] = []
    for (model, dataset), methods in groups.items():
        stem = Path(out_dir) / f"triangle_{_slug(model)}_{_slug(dataset)}"
        written += radar_chart(methods, f"{model} / {dataset}", stem)
    return written


def forget_quality_heatmap(
    rows: Sequence[Mapping[str, Any]],
    out_stem: str | os.PathLike[str],
    *,
    title: str = "Forget Quality",
    type_order: Sequence[str] = TYPE_ORDER,
) -> list[Path]:
    """Method x question-type heatmap of FQ (``{"method", "type", "metric"}`` rows of one model);
    undefined cells are grey and labelled ``n/a``, with the reason when the base model is at chance
    on the type (``n/a: base model at chance (11 of 22)``, ``n/a: too few known (2 of 43)``)."""
    cells: dict[tuple[str, str], MetricValue] = {}
    for index, row in enumerate(rows):
        cells[(str(row["method"]), str(row["type"]))] = _as_metric(
            row.get("metric"), f"row {index}"
        )
    methods = list(dict.fromkeys(m for m, _ in cells))
    types = _ordered((t for _, t in cells), type_order)
    grid = np.full((len(methods), len(types)), np.nan)
    for (method, qtype), metric in cells.items():
        if metric.value is not None:
            grid[methods.index(method), types.index(qtype)] = metric.value
    fig, ax = plt.subplots(figsize=(1.0 + 1.1 * len(types), 1.0 + 0.6 * len(methods)))
    cmap = matplotlib.colormaps["RdYlGn"].with_extremes(bad="#cccccc")
    image = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=-0.5, vmax=1.0, aspect="auto")
    for i in range(len(methods)):
        for j in range(len(types)):
            metric = cells.get((methods[i], types[j]))
            reason = (metric.undefined_reason if metric is not None else None) or ""
            if no_signal(reason):  # "base model at chance on MT (11 of 22)", "too few known on ..."
                head, _, counts = reason.partition(" on ")
                head = head.replace("base model ", "base model\n")
                text, size = f"n/a: {head}\n({counts.split('(', 1)[-1].split(')', 1)[0]})", 6
            else:
                text = "n/a" if np.isnan(grid[i, j]) else f"{grid[i, j] * 100:.1f}"
                size = 9
            ax.text(j, i, text, ha="center", va="center", fontsize=size)
    ax.set_xticks(range(len(types)), types)
    ax.set_yticks(range(len(methods)), methods)
    ax.set_title(title)
    fig.colorbar(image, ax=ax, label="FQ (1 = fully forgotten)")
    return _save(fig, Path(out_stem))


def recovery_curve_figure(
    panels: Mapping[str, Mapping[str, Sequence[tuple[str, Any]]]],
    out_stem: str | os.PathLike[str],
    *,
    formats: Sequence[str] = ("png", "pdf"),
) -> list[Path]:
    """Recovery curves over attack budget (issue 38), one panel per key (e.g. "ga: probab"):
    ``panels[panel][series] = [(rung label, RR metric), ...]`` in ladder order. Rungs are evenly spaced and
    labelled (budgets of different units share no scale); a series whose name ends in
    "multi-hop" is dashed; each has its 95% CI band; undefined rungs are gaps. Written as
    ``out_stem.png`` and ``.pdf`` (the paper formats)."""
    n = max(len(panels), 1)
    fig, axes = plt.subplots(1, n, figsize=(4.2 * n, 3.4), squeeze=False, sharey=True)
    for ax, (title, series) in zip(axes[0], panels.items(), strict=False):
        labels: list[str] = []
        for index, (name, points) in enumerate(series.items()):
            metrics = [_as_metric(m, f"{title} / {name} at {r}") for r, m in points]
            labels = labels if len(labels) >= len(points) else [r for r, _ in points]
            xs = np.arange(len(points))
            val = [np.nan if m.value is None else 100 * m.value for m in metrics]
            lo = [np.nan if m.ci_low is None else 100 * m.ci_low for m in metrics]
            hi = [np.nan if m.ci_high is None else 100 * m.ci_high for m in metrics]
            color = plt.cm.tab10(index % 10)
            style = "--" if name.endswith("multi-hop") else "-"
            ax.plot(xs, val, style, marker="o", color=color, label=name)
            ax.fill_between(xs, lo, hi, color=color, alpha=0.12)
        ax.set_xticks(range(len(labels)), labels)
        ax.set_xlabel("attack budget (ladder rung)")
        ax.set_title(title)
        ax.set_ylim(0, 100)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    axes[0][0].set_ylabel("Recovery Rate % (95% CI)")
    return _save(fig, Path(out_stem), formats)
