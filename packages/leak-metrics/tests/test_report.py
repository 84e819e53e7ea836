"""Tables render the paper's shapes with CIs and n/a; plots are written as valid PNG and SVG."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from leak_metrics import MetricValue
from leak_metrics.report import (
    forget_quality_heatmap,
    forget_quality_table,
    ideal_triangle_plots,
    recovery_rate_table,
)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

FQ_ROWS = [
    {"model": "SmolLM2", "method": "GA", "type": "HS", "metric": MetricValue(0.828, 0.7, 0.9, 40)},
    {"model": "SmolLM2", "method": "GA", "type": "SH", "metric": MetricValue(0.72, 0.6, 0.8, 40)},
    {
        "model": "SmolLM2",
        "method": "AS",
        "type": "SH",
        "metric": MetricValue(-0.163, -0.3, 0.0, 40).to_dict(),  # dicts are accepted too
    },
    {
        "model": "SmolLM2",
        "method": "AS",
        "type": "HS",
        "metric": MetricValue.undefined("base accuracy is 0", 40),
    },
    {"model": "Other", "method": "GA", "type": "SH", "metric": MetricValue(0.5, 0.4, 0.6, 10)},
]

RR_ROWS = [
    {"model": "SmolLM2", "method": "GA", "attack": "Probab", "hop": hop, "metric": MetricValue(v, v - 0.1, v + 0.1, 20)}
    for hop, v in (("MH", 0.563), ("SH", 0.424))
] + [
    {"model": "SmolLM2", "method": "GA", "attack": "Quant", "hop": "SH", "metric": MetricValue.undefined("S_suc is empty")},
]  # fmt: skip


def test_forget_quality_markdown() -> None:
    text = forget_quality_table(FQ_ROWS)
    assert "**SmolLM2**" in text and "**Other**" in text
    assert "| Method | SH | HS |" in text  # paper column order, whatever the row order
    assert "| GA | 72.0 [60.0, 80.0] | 82.8 [70.0, 90.0] |" in text
    assert "| AS | -16.3 [-30.0, 0.0] | n/a |" in text
    no_ci = forget_quality_table(FQ_ROWS, show_ci=False)
    assert "| GA | 72.0 | 82.8 |" in no_ci


def test_forget_quality_csv_and_latex() -> None:
    rows = list(csv.DictReader(io.StringIO(forget_quality_table(FQ_ROWS, "csv"))))
    as_row = next(r for r in rows if r["model"] == "SmolLM2" and r["method"] == "AS")
    assert float(as_row["SH"]) == -0.163 and as_row["HS"] == "n/a" and as_row["HS_n"] == "40"
    other = next(r for r in rows if r["model"] == "Other")
    assert other["HS"] == "n/a"  # absent cell, not 0
    latex = forget_quality_table(FQ_ROWS, "latex", show_ci=False)
    assert "\\begin{tabular}{lcc}" in latex
    assert "AS & -16.3 & n/a \\\\" in latex
    assert "\\multicolumn{3}{c}{\\textit{SmolLM2}}" in latex


def test_recovery_rate_table_shape() -> None:
    text = recovery_rate_table(RR_ROWS, show_ci=False)
    assert "| Method | Probab SH | Probab MH | Quant SH | Quant MH |" in text
    assert "| GA | 42.4 | 56.3 | n/a | n/a |" in text
    latex = recovery_rate_table(RR_ROWS, "latex", show_ci=False)
    assert "GA & 42.4 & 56.3 & n/a & n/a \\\\" in latex


def test_plots_written_as_png_and_svg(tmp_path: Path) -> None:
    rows = [
        {
            "model": "SmolLM2-135M",
            "dataset": "MQuAKE",
            "method": method,
            "forget_quality": fq,
            "robustness": MetricValue(rob, None, None, 10),
            "utility": MetricValue(util, None, None, 10).to_dict(),
        }
        for method, fq, rob, util in (
            ("GA", MetricValue(0.72, 0.6, 0.8, 40), 0.6, 0.55),
            ("RMU", MetricValue.undefined("base accuracy is 0", 40), 0.2, 0.99),
            ("AS", MetricValue(-0.2, -0.3, 0.0, 40), 0.3, 0.9),
        )
    ]
    files = ideal_triangle_plots(rows, tmp_path / "plots")
    files += forget_quality_heatmap(FQ_ROWS[:4], tmp_path / "plots" / "fq_heatmap")
    assert sorted(p.name for p in files) == [
        "fq_heatmap.png",
        "fq_heatmap.svg",
        "triangle_SmolLM2-135M_MQuAKE.png",
        "triangle_SmolLM2-135M_MQuAKE.svg",
    ]
    for path in files:
        data = path.read_bytes()
        assert len(data) > 1000
        if path.suffix == ".png":
            assert data.startswith(PNG_MAGIC)
        else:
            assert b"<svg" in data[:2000]


def test_plot_names_keep_everything_after_a_dot(tmp_path: Path) -> None:
    # A dotted model name used to lose everything after its first dot, so two models' radars collided.
    rows = [
        {"model": model, "dataset": "builtin", "method": "GA",
         "forget_quality": MetricValue(0.5, 0.4, 0.6, 10), "robustness": MetricValue(0.5, None, None, 10),
         "utility": MetricValue(0.9, None, None, 10)}
        for model in ("SmolLM2-1.7B-Instruct", "SmolLM2-1.3B-Instruct")
    ]  # fmt: skip
    files = ideal_triangle_plots(rows, tmp_path)
    assert sorted(p.name for p in files) == [
        "triangle_SmolLM2-1.3B-Instruct_builtin.png",
        "triangle_SmolLM2-1.3B-Instruct_builtin.svg",
        "triangle_SmolLM2-1.7B-Instruct_builtin.png",
        "triangle_SmolLM2-1.7B-Instruct_builtin.svg",
    ]
    assert all(p.is_file() for p in files)


def test_recovery_curve_figure_written_as_png_and_pdf_with_undefined_rungs(tmp_path: Path) -> None:
    from leak_metrics.report import recovery_curve_figure

    panels = {
        "ga: probab": {
            "single-hop": [
                ("1", MetricValue(0.1, 0.0, 0.2, 10)),
                ("5", MetricValue(0.4, 0.2, 0.6, 10)),
            ],
            "multi-hop": [("1", MetricValue.undefined("S_suc is empty")), ("5", {"value": 0.3})],
        },
        "ga: quantization": {"single-hop": [("int8", MetricValue(0.0, 0.0, 0.0, 10))]},
    }
    written = recovery_curve_figure(panels, tmp_path / "curves")
    assert [p.name for p in written] == ["curves.png", "curves.pdf"]
    assert written[0].read_bytes().startswith(PNG_MAGIC)
    assert written[1].read_bytes().startswith(b"%PDF")
