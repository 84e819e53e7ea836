"""Paper-shaped result tables (Markdown, CSV, LaTeX).

Input rows are plain dicts; the metric is a ``MetricValue`` or its ``to_dict()``:

* Table 2 (Forget Quality): ``{"model", "method", "type", "metric"}`` -> per model, one row per
  method and one column per question type (SH HS MT DS LL MP CC order, then any others).
* Table 3 (Recovery Rate): ``{"model", "method", "attack", "hop": "SH"|"MH", "metric"}`` -> per
  model, one row per method and a (attack, hop) column pair per attack.

Cells show the value in percent with one decimal and the 95% CI in brackets (``show_ci``);
undefined metrics show ``n/a``, never 0; an FQ left out because the base model is at chance on the
type shows its reason, ``n/a: base model at chance on MT (11 of 22)`` (:mod:`leak_metrics.chance`).
CSV is long-form-free "wide" with separate CI columns. ``forget_quality_table(chance=...)`` puts
each type's chance accuracy in its column header.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from leak_metrics.chance import no_signal
from leak_metrics.csv_safe import csv_safe
from leak_metrics.datatypes import MetricValue

TYPE_ORDER: tuple[str, ...] = ("SH", "HS", "MT", "DS", "LL", "MP", "CC")
HOP_ORDER: tuple[str, ...] = ("SH", "MH")
NA = "n/a"


def _metric(row: Mapping[str, Any], index: int) -> MetricValue:
    value = row.get("metric")
    if isinstance(value, MetricValue):
        return value
    if isinstance(value, Mapping):
        return MetricValue.from_dict(value)
    raise ValueError(
        f"row {index}: field 'metric' must be a MetricValue or its dict, got {value!r}"
    )


def _ordered(values: Iterable[str], preferred: Sequence[str]) -> list[str]:
    seen = list(dict.fromkeys(values))
    return [v for v in preferred if v in seen] + [v for v in seen if v not in preferred]


def _pivot(
    rows: Sequence[Mapping[str, Any]], column_fields: Sequence[str], required: Sequence[str]
) -> dict[str, dict[str, dict[tuple[str, ...], MetricValue]]]:
    """model -> method -> column key -> metric, preserving first-seen order."""
    table: dict[str, dict[str, dict[tuple[str, ...], MetricValue]]] = {}
    for index, row in enumerate(rows):
        for field in required:
            if field not in row:
                raise ValueError(f"row {index}: missing field '{field}'")
        key = tuple(str(row[f]) for f in column_fields)
        table.setdefault(str(row["model"]), {}).setdefault(str(row["method"]), {})[key] = _metric(
            row, index
        )
    return table


def not_available(metric: MetricValue | None) -> str:
    """``n/a``, or ``n/a: <reason>`` when the base model shows no signal on the type (at or below
    chance, too few known: the reader must see why)."""
    reason = metric.undefined_reason if metric is not None else None
    if no_signal(reason):
        return f"{NA}: {reason}"
    return NA


def format_cell(metric: MetricValue | None, *, percent: bool = True, show_ci: bool = True) -> str:
    if metric is None or metric.value is None:
        return not_available(metric)
    scale = 100.0 if percent else 1.0
    text = f"{metric.value * scale:.1f}" if percent else f"{metric.value:.3f}"
    if show_ci and metric.ci_low is not None and metric.ci_high is not None:
        if percent:
            text += f" [{metric.ci_low * scale:.1f}, {metric.ci_high * scale:.1f}]"
        else:
            text += f" [{metric.ci_low:.3f}, {metric.ci_high:.3f}]"
    return text


def _render(
    table: dict[str, dict[str, dict[tuple[str, ...], MetricValue]]],
    columns: list[tuple[str, ...]],
    fmt: str,
    *,
    percent: bool,
    show_ci: bool,
    caption: str,
    chance: Mapping[str, float] | None = None,
) -> str:
    keys = [" ".join(c) for c in columns]
    chance = {k: v for k, v in (chance or {}).items() if v}
    # Markdown and LaTeX name a guessable column's chance level in its header; CSV gets a column.
    headers = [f"{k} (chance {100 * chance[k]:.0f}%)" if k in chance else k for k in keys]
    if fmt == "markdown":
        return _markdown(table, columns, headers, percent=percent, show_ci=show_ci)
    if fmt == "csv":
        return _csv(table, columns, keys, chance)
    if fmt == "latex":
        return _latex(table, columns, headers, caption, percent=percent, show_ci=show_ci)
    raise ValueError(f"unknown format '{fmt}'; expected markdown, csv or latex")


def _markdown(
    table: dict[str, dict[str, dict[tuple[str, ...], MetricValue]]],
    columns: list[tuple[str, ...]],
    headers: list[str],
    *,
    percent: bool,
    show_ci: bool,
) -> str:
    lines: list[str] = []
    for model, methods in table.items():
        lines += [f"**{model}**", "", "| Method | " + " | ".join(headers) + " |"]
        lines.append("|---|" + "---|" * len(columns))
        for method, cells in methods.items():
            values = [format_cell(cells.get(c), percent=percent, show_ci=show_ci) for c in columns]
            lines.append(f"| {method} | " + " | ".join(values) + " |")
        lines.append("")
    return "\n".join(lines)


def _csv(
    table: dict[str, dict[str, dict[tuple[str, ...], MetricValue]]],
    columns: list[tuple[str, ...]],
    keys: list[str],
    chance: dict[str, float],
) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    header = ["model", "method"]
    for name in keys:
        key = name.replace(" ", "_")
        header += [key, f"{key}_ci_low", f"{key}_ci_high", f"{key}_n"]
        header += [f"{key}_chance"] if name in chance else []
    writer.writerow(header)
    for model, methods in table.items():
        for method, cells in methods.items():
            line: list[Any] = [csv_safe(model), csv_safe(method)]
            for column in columns:
                m = cells.get(column)
                if m is None or m.value is None:
                    line += [not_available(m), NA, NA, m.n if m is not None else NA]
                else:
                    line += [m.value, m.ci_low, m.ci_high, m.n]
                line += [chance[" ".join(column)]] if " ".join(column) in chance else []
            writer.writerow(line)
    return out.getvalue()


def _latex(
    table: dict[str, dict[str, dict[tuple[str, ...], MetricValue]]],
    columns: list[tuple[str, ...]],
    headers: list[str],
    caption: str,
    *,
    percent: bool,
    show_ci: bool,
) -> str:
    spec = "l" + "c" * len(columns)
    lines = [
        "\\begin{table}[t]",
        "\\centering",
        f"\\begin{{tabular}}{{{spec}}}",
        "\\toprule",
        "Algo & " + " & ".join(_tex(h) for h in headers) + " \\\\",
        "\\midrule",
    ]
    for model, methods in table.items():
        lines.append(f"\\multicolumn{{{len(columns) + 1}}}{{c}}{{\\textit{{{_tex(model)}}}}} \\\\")
        for method, cells in methods.items():
            values = [
                _tex(format_cell(cells.get(c), percent=percent, show_ci=show_ci)) for c in columns
            ]
            lines.append(f"{_tex(method)} & " + " & ".join(values) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}", f"\\caption{{{_tex(caption)}}}", "\\end{table}"]
    return "\n".join(lines) + "\n"


def _tex(text: str) -> str:
    for char in ("\\", "&", "%", "_", "#", "$"):
        text = text.replace(char, "\\" + char if char != "\\" else "\\textbackslash{}")
    return text


def forget_quality_table(
    rows: Sequence[Mapping[str, Any]],
    fmt: str = "markdown",
    *,
    percent: bool = True,
    show_ci: bool = True,
    type_order: Sequence[str] = TYPE_ORDER,
    chance: Mapping[str, float] | None = None,
    caption: str | None = None,
) -> str:
    """Table 2: Forget Quality, method x question type, one block per model.

    ``chance`` (type -> chance accuracy, :func:`leak_metrics.chance.type_chance`) adds it to the
    column headers of the types that can be guessed (``MT (chance 50%)``); ``caption`` replaces
    the default caption (e.g. for the chance-corrected FQ, which is not the paper's)."""
    table = _pivot(rows, ("type",), ("model", "method", "type", "metric"))
    all_types = [
        key[0] for methods in table.values() for cells in methods.values() for key in cells
    ]
    columns = [(t,) for t in _ordered(all_types, type_order)]
    text = _render(
        table,
        columns,
        fmt,
        percent=percent,
        show_ci=show_ci,
        caption=caption
        or (
            "Forget Quality (%) per question type; n/a = undefined (base accuracy 0, or the base "
            "model at chance on the type)."
        ),
        chance=chance,
    )
    # A Markdown table has no caption: a custom one (a table that is not the paper's) goes on top.
    return f"_{caption}_\n\n{text}" if caption and fmt == "markdown" else text


def recovery_rate_table(
    rows: Sequence[Mapping[str, Any]],
    fmt: str = "markdown",
    *,
    percent: bool = True,
    show_ci: bool = True,
) -> str:
    """Table 3: Recovery Rate, method x (attack, SH/MH), one block per model."""
    table = _pivot(rows, ("attack", "hop"), ("model", "method", "attack", "hop", "metric"))
    keys = [key for methods in table.values() for cells in methods.values() for key in cells]
    attacks = list(dict.fromkeys(k[0] for k in keys))
    hops = _ordered((k[1] for k in keys), HOP_ORDER)
    columns = [(a, h) for a in attacks for h in hops]
    caption = "Recovery Rate (%) per attack, single-hop (SH) and multi-hop (MH); n/a = S_suc empty."
    return _render(table, columns, fmt, percent=percent, show_ci=show_ci, caption=caption)
