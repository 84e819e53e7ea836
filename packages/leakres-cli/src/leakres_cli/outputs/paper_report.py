"""Paper-shaped outputs of a run: Table 2 (FQ) and Table 3 (RR) as Markdown/CSV/LaTeX, radar and heatmap;
and every registered metric of the run (``tables/metrics.{md,csv}``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from leakres_cli.scale.store import write_text_atomic


def fq_rows(results: dict[str, Any], key: str = "fq") -> list[dict[str, Any]]:
    """Table 2's rows; ``key="fq_chance_corrected"`` for leakres' chance-corrected FQ (absent in
    runs written before it existed: no rows)."""
    model = results["config"]["model"]
    return [
        {"model": model, "method": method, "type": qtype, "metric": pt[key]}
        for method, m in results["methods"].items()
        for qtype, pt in m["per_type"].items()
        if key in pt
    ]


def type_chance(results: dict[str, Any]) -> dict[str, float]:
    """Each scored type's chance accuracy (the table headers name it); empty for older runs."""
    checks = (results.get("types") or {}).get("checks") or {}
    return {t: c["chance"] for t, c in checks.items() if c.get("chance")}


CC_CAPTION = (
    "Chance-corrected Forget Quality (%), leakres' own, not the paper's: "
    "1 - (Acc_u - chance) / (Acc_p - chance); n/a = base accuracy not above chance."
)


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
        notes = []
        if m.get("fq_excluded_types"):
            notes.append(f"FQ without {', '.join(m['fq_excluded_types'])} (base at chance)")
        if m.get("robustness_set_by"):
            cells = ", ".join(f"{c['attack']} {c['hop']}" for c in m["robustness_set_by"])
            notes.append(f"robustness set by {cells}")
        basis = m["utility"].get("ratio_basis")
        if basis:
            notes.append(f"utility: {'retain ratio' if basis == 'retain' else 'BBH ratio'}")
        if m["utility"].get("bbh_too_small"):
            notes.append("BBH ratio too small to judge")
        rows.append({
            "model": cfg["model"], "dataset": cfg["source"], "method": method,
            "forget_quality": m["fq_all_types"],
            "robustness": m["robustness"],
            "utility": m["utility"]["ratio"],
            "note": "; ".join(notes),
        })  # fmt: skip
    return rows


def write_metrics_tables(results: dict[str, Any], tables: Path) -> list[Path]:
    """``tables/metrics.{md,csv}``: every metric leak-metrics registers that the run reports, one
    row per method and place, with its definition (:func:`.metric_rows.metrics_table`)."""
    from leakres_cli.outputs.metric_rows import metrics_table

    written = []
    for fmt, ext in (("markdown", "md"), ("csv", "csv")):
        path = tables / f"metrics.{ext}"
        write_text_atomic(path, metrics_table(results, fmt))
        written.append(path)
    return written


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
    chance = type_chance(results)
    cc_rows = fq_rows(results, "fq_chance_corrected")
    for fmt, ext in (("markdown", "md"), ("csv", "csv"), ("latex", "tex")):
        texts = {
            "table2_forget_quality": forget_quality_table(fq_rows(results), fmt, chance=chance),
            "table3_recovery_rate": recovery_rate_table(rr_rows(results), fmt),
        }
        if cc_rows:
            texts["table2_forget_quality_chance_corrected"] = forget_quality_table(
                cc_rows, fmt, chance=chance, caption=CC_CAPTION
            )
        for name, text in texts.items():
            path = tables / f"{name}.{ext}"
            write_text_atomic(path, text)
            written.append(path)
    written += write_metrics_tables(results, tables)
    from leakres_cli.outputs.curves import write_tables

    written += write_tables(results, tables)  # --attack-budgets curves, the controls
    plots = out_dir / "plots"
    plots.mkdir(parents=True, exist_ok=True)
    written += ideal_triangle_plots(triangle_rows(results), plots)
    written += forget_quality_heatmap(fq_rows(results), plots / "fq_heatmap")
    from leakres_cli.outputs.trajectory_plot import trajectory_plots

    written += trajectory_plots(results, plots)  # --eval-every only
    return written
