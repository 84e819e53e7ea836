"""The registered metrics as the outputs read them from results.json (issue 37 item 4): which
metrics a level shows, where each sits in a method's block, its text, and every (method, place,
metric) of a run as rows for the summary, the tables and the report.

Every name, label, unit and definition comes from leak-metrics' registry
(:func:`leak_metrics.available_metrics`); nothing here names a metric. A metric whose spec has no
``results_key`` is a library metric a run does not compute, and is not shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

HOPS = ("SH", "MH")


def shown_metrics(level: str) -> list[Any]:
    """The registered metrics of ``level`` a run reports, in registration order."""
    from leak_metrics import available_metrics

    return [s for s in available_metrics(level) if s.results_key]


def lookup(block: Any, spec: Any, hop: str = "") -> Any:
    """The value of ``spec`` in its level's ``block`` (None when absent: an older run)."""
    for part in spec.results_key.format(hop=hop).split("."):
        if not isinstance(block, Mapping):
            return None
        block = block.get(part)
    return block


def metric_text(spec: Any, d: Any) -> str:
    """``85.4 [75, 94]`` (the CI to whole units), ``n/a``, or ``n/a: <reason>`` when the base
    model shows no signal (at or below chance, too few known: the reader must see why)."""
    from leak_metrics import MetricValue, no_signal

    if not isinstance(d, Mapping) or d.get("value") is None:
        reason = (d or {}).get("undefined_reason") if isinstance(d, Mapping) else None
        return f"n/a: {reason}" if reason and no_signal(reason) else "n/a"
    return spec.format(MetricValue.from_dict(d), ci_digits=0)


def metric_rows(results: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every reported metric of every method: ``{"method", "level", "where", "spec", "metric"}``
    (``where``: the type, ``ATTACK HOP`` or ``-``), methods in run order, then levels type,
    attack, method, then registration order."""
    methods = results.get("methods")
    rows: list[dict[str, Any]] = []
    for method, m in (methods if isinstance(methods, Mapping) else {}).items():
        if not isinstance(m, Mapping):
            continue
        for where, block, spec, hop in _places(m):
            rows.append({"method": method, "level": spec.level, "where": where, "spec": spec,
                         "metric": lookup(block, spec, hop)})  # fmt: skip
    return rows


def _places(m: Mapping[str, Any]):
    """(where, block, spec, hop) of each metric shown for one method's block."""
    per_type = m.get("per_type") if isinstance(m.get("per_type"), Mapping) else {}
    attacks = m.get("attacks") if isinstance(m.get("attacks"), Mapping) else {}
    for spec in shown_metrics("type"):
        for qtype, block in per_type.items():
            yield qtype, block, spec, ""
    for spec in shown_metrics("attack"):
        for attack, block in attacks.items():
            for hop in HOPS:
                yield f"{attack} {hop}", block, spec, hop
    for spec in shown_metrics("method"):
        yield "-", m, spec, ""


def glossary() -> list[dict[str, str]]:
    """One line per reported metric: label, name, definition, reference, direction, unit."""
    return [
        {"label": s.display, "name": s.name, "definition": s.definition,
         "reference": s.reference, "direction": s.direction, "unit": s.unit}
        for level in ("type", "attack", "method") for s in shown_metrics(level)
    ]  # fmt: skip


def metrics_table(results: Mapping[str, Any], fmt: str) -> str:
    """``tables/metrics.{md,csv}``: every reported metric of the run, one row each, with the
    registry's definition. ``markdown``: the printed value (``85.4 [75, 94]``); ``csv``: the stored
    numbers (``value``, ``ci_low``, ``ci_high`` as results.json holds them, e.g. 0.854) and the
    reason a value is undefined."""
    model = (results.get("config") or {}).get("model", "")
    rows = metric_rows(results)
    if fmt == "csv":
        fields = ("value", "ci_low", "ci_high", "n", "undefined_reason")
        return _csv(
            ["model", "method", "level", "where", "metric", "name", "unit", *fields, "definition"],
            [[model, r["method"], r["level"], r["where"], r["spec"].display, r["spec"].name,
              r["spec"].unit, *(_field(r["metric"], f) for f in fields), r["spec"].definition]
             for r in rows],
        )  # fmt: skip
    header = [
        "model",
        "method",
        "level",
        "where",
        "metric",
        "value",
        "n",
        "definition",
        "reference",
    ]
    body = [
        [model, r["method"], r["level"], r["where"], r["spec"].display,
         metric_text(r["spec"], r["metric"]), _field(r["metric"], "n"), r["spec"].definition,
         r["spec"].reference]
        for r in rows
    ]  # fmt: skip
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in body]
    return "\n".join(lines) + "\n"


def _field(d: Any, key: str) -> Any:
    return d.get(key) if isinstance(d, Mapping) and d.get(key) is not None else ""


def _csv(header: list[str], rows: list[list[Any]]) -> str:
    import csv
    import io

    from leak_metrics.csv_safe import csv_safe

    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([[csv_safe(c) for c in row] for row in rows])
    return buf.getvalue()
