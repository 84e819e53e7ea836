"""CSV exports never hand a spreadsheet a formula (issue 22, minor item): a text cell that starts with
=, +, -, @, tab or CR gets a leading apostrophe; numbers (also negative ones) stay numbers."""

from __future__ import annotations

import csv
import io

from leak_metrics.csv_safe import csv_safe
from leak_metrics.datatypes import MetricValue
from leak_metrics.report.tables import _render


def test_formula_cells_are_neutralized_and_numbers_kept() -> None:
    assert csv_safe('=HYPERLINK("http://x","y")') == '\'=HYPERLINK("http://x","y")'
    for lead in ("+1+2", "-cmd", "@SUM(A1)", "\tx", "\rx"):
        assert csv_safe(lead) == "'" + lead
    assert csv_safe("-0.5") == "-0.5" and csv_safe(-0.5) == -0.5 and csv_safe("ga") == "ga"


def test_table_csv_writes_a_formula_named_method_as_text() -> None:
    cell = MetricValue(value=0.5, ci_low=0.4, ci_high=0.6, n=10)
    table = {"=cmd|' /C calc'!A0": {"ga": {("SH",): cell}}}
    text = _render(table, [("SH",)], "csv", percent=True, show_ci=True, caption="t")
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[1][0] == "'=cmd|' /C calc'!A0" and rows[1][1] == "ga"
    assert float(rows[1][2]) == 0.5
