"""The paired comparisons' forest plot (outputs/comparison_plot.py) from a hand-written
results.json ``comparisons`` block: its rows, its two files, none without comparisons."""

from __future__ import annotations

import pytest
from leakres_cli.outputs.comparison_plot import (
    Row,
    comparison_rows,
    comparison_svg,
    write_comparison_figure,
)

pytest.importorskip("matplotlib")


def _entry(a, b, diff, low, high, p, n, significant):
    return {"a": a, "b": b, "difference": diff, "ci_low": low, "ci_high": high, "p_value": p,
            "p_holm": p, "n": n, "significant": significant, "sentence": f"{a} vs {b}"}  # fmt: skip


RESULTS = {
    "comparisons": {
        "alpha": 0.05,
        "robustness": [_entry("ga", "npo", 0.125, 0.02, 0.25, 0.04, 113, True)],
        "fq": {"SH": [_entry("ga", "npo", -0.05, -0.2, 0.1, 0.6, 47, False)]},
    }
}


def test_rows_are_the_block_in_points():
    rows = comparison_rows(RESULTS)
    assert rows == [
        Row("ga - npo: robustness", 12.5, 2.0, 25.0, True, 0.04, 113),
        Row("ga - npo: FQ SH", -5.0, -20.0, 10.0, False, 0.6, 47),
    ]


def test_writes_png_and_pdf(tmp_path):
    paths = write_comparison_figure(RESULTS, tmp_path)
    assert sorted(p.name for p in paths) == ["comparisons.pdf", "comparisons.png"]
    assert (tmp_path / "comparisons.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "comparisons.pdf").read_bytes()[:5] == b"%PDF-"


def test_inline_svg_names_each_row():
    text = comparison_svg(RESULTS)
    assert text.startswith("<svg")
    assert "ga - npo: FQ SH" in text and "p = 0.040 (Holm), n = 113" in text


@pytest.mark.parametrize("results", [{}, {"comparisons": None}, {"comparisons": {"fq": {}}}])
def test_no_comparisons_no_file(tmp_path, results):
    assert write_comparison_figure(results, tmp_path) == []
    assert list(tmp_path.iterdir()) == []
    assert comparison_svg(results) == ""


def test_report_view_embeds_the_figure():
    from leakres_cli.outputs.report.view import _seed_view

    assert _seed_view(RESULTS)["comparison_svg"] == comparison_svg(RESULTS)
    assert _seed_view({})["comparison_svg"] == ""
