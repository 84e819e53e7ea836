"""`kg-qgen review --export-csv` (and the app's /export/annotations.csv) keeps a comment such as
=HYPERLINK(...) as text, never as a spreadsheet formula (issue 22, minor item)."""

from __future__ import annotations

import csv
import io

from kg_qgen.review.storage import Annotation, SampleRow
from kg_qgen.review.summary import annotations_csv


def test_formula_comment_is_exported_as_text() -> None:
    sample = [SampleRow("HS-000001", 0, "HS", "+Who is it?", "@someone")]
    ann = Annotation("ann", "HS-000001", True, comment='=HYPERLINK("http://evil","click")')
    rows = list(csv.DictReader(io.StringIO(annotations_csv(sample, [ann]))))
    assert rows[0]["comment"] == '\'=HYPERLINK("http://evil","click")'
    assert rows[0]["question"] == "'+Who is it?" and rows[0]["answer"] == "'@someone"
    assert rows[0]["verdict"] == "yes" and rows[0]["position"] == "0"
