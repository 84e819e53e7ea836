"""Paper-shaped outputs of a run: Table 2 (FQ) and Table 3 (RR) as Markdown/CSV/LaTeX, radar and heatmap."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .store import write_text_atomic


def fq_rows(results: dict[str, Any]) -> list[dict[str, Any]]:
    model = results["config"]["model"]
    return [
        {"model": model, "method": method, "type": qtype, "metric": pt["fq"]}
        for method, m in results["methods"].items()
        for qtype, pt in m["per_type"].items()
    ]


def rr_rows(results: dict[str, Any]) -> list[dict[str, Any]]:
    model = results["config"]["model"]
    return [
        {"model": model, "method": method, "attack": attack, "hop": hop, "metric": a[f"rr_{hop}"]}
        for method, m in results["methods"].items()
        for attack, a in m["attacks"].items()
        for hop in ("SH", "MH")
    ]


def triangle_rows(results: dict[str, Any]) -> list[dict[str, Any]]:
    cfg = results["config"]
    rows = []
    for method, m in results["methods"].items():
        # Every vertex is a metric dict leak-metrics computed (results.json); none is built here.
        rows.append({
            "model": cfg["model"], "dataset": cfg["source"], "method": method,
            "forget_quality": m["fq_all_types"],
            "robustness": m["robustness"],
            "utility": m["utility"]["ratio"],
        })  # fmt: skip
    return rows


def write_paper_report(results: dict[str, Any], out_dir: Path) -> list[Path]:
    """Write tables/ and plots/ under ``out_dir``; returns the written files."""
    from leak_metrics.report import (
        forget_quality_heatmap,
        forget_quality_table,
        ideal_triangle_plots,
        recovery_rate_table,
    )

    written: list[Path] = []
    tables = out_dir / "tables"
    for fmt, ext in (("markdown", "md"), ("csv", "csv"), ("latex", "tex")):
        for name, fn, rows in (("table2_forget_quality", forget_quality_table, fq_rows(results)),
                               ("table3_recovery_rate", recovery_rate_table, rr_rows(results))):  # fmt: skip
            path = tables / f"{name}.{ext}"
            write_text_atomic(path, fn(rows, fmt))
            written.append(path)
    plots = out_dir / "plots"
    plots.mkdir(parents=True, exist_ok=True)
    written += ideal_triangle_plots(triangle_rows(results), plots)
    written += forget_quality_heatmap(fq_rows(results), plots / "fq_heatmap")
    return written
