"""Review statistics: Wilson interval, Fleiss' kappa (textbook example), per-type validity."""

from __future__ import annotations

import pytest
from kg_qgen.review.storage import Annotation, SampleRow
from kg_qgen.review.summary import (
    annotations_csv,
    fleiss_kappa,
    format_summary,
    summarize,
    wilson_interval,
)

# Fleiss' kappa worked example (Wikipedia "Fleiss' kappa", after Fleiss 1971): 10 subjects,
# 14 raters each, 5 categories. Published: p_j = .143 .200 .279 .150 .229, P-bar = 0.378,
# P_e = 0.213, kappa = 0.210.
WIKIPEDIA_TABLE = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]


def test_fleiss_kappa_matches_the_textbook_example():
    k = fleiss_kappa(WIKIPEDIA_TABLE)
    assert k.n_items == 10 and k.n_ratings == 140
    assert k.p_observed == pytest.approx(0.378, abs=5e-4)
    assert k.p_expected == pytest.approx(0.213, abs=5e-4)
    assert k.value == pytest.approx(0.210, abs=5e-4)


def test_fleiss_kappa_perfect_chance_and_undefined():
    assert fleiss_kappa([[3, 0], [0, 3], [3, 0], [0, 3]]).value == pytest.approx(1.0)
    # Raters split every item 1:1 -> observed agreement 0 < expected 0.5 -> kappa -1.
    assert fleiss_kappa([[1, 1], [1, 1]]).value == pytest.approx(-1.0)
    every_yes = fleiss_kappa([[3, 0], [2, 0]])
    assert every_yes.value is None and "one category" in every_yes.undefined_reason
    none = fleiss_kappa([[1, 0], [0, 1]])  # nobody's item was judged twice
    assert none.value is None and none.n_items == 0


def test_fleiss_kappa_with_varying_raters_reduces_to_fleiss_when_constant():
    # Adding an item rated once changes nothing (it is ignored); items with 2 and 3 raters mix.
    assert fleiss_kappa([[2, 1], [0, 3], [1, 0]]).value == fleiss_kappa([[2, 1], [0, 3]]).value
    k = fleiss_kappa([[2, 0], [1, 2], [0, 3]])
    # By hand: P_i = 1, 1/3, 1 -> P-bar 7/9; p = (3/8, 5/8) -> P_e = 34/64.
    p_e = (3 / 8) ** 2 + (5 / 8) ** 2
    assert k.value == pytest.approx((7 / 9 - p_e) / (1 - p_e))


def test_wilson_interval_known_values():
    # 8 of 10: Wilson 95% = [0.490, 0.943] (Newcombe 1998 method 3 / any textbook table).
    lo, hi = wilson_interval(0.8, 10)
    assert lo == pytest.approx(0.4902, abs=1e-4) and hi == pytest.approx(0.9433, abs=1e-4)
    lo, hi = wilson_interval(1.0, 10)  # all valid still leaves room below
    assert hi == pytest.approx(1.0) and lo == pytest.approx(0.7225, abs=1e-4)
    with pytest.raises(ValueError):
        wilson_interval(0.5, 0)


def _rows() -> list[SampleRow]:
    return [SampleRow(f"{t}-{i}", n, t, f"q {t}{i}", "a") for n, (t, i) in enumerate(
        [("HS", 0), ("HS", 1), ("HS", 2), ("MT", 0), ("MT", 1)]
    )]  # fmt: skip


def test_summary_validity_per_item_then_per_type():
    sample = _rows()
    anns = [
        Annotation("ann", "HS-0", True),
        Annotation("bob", "HS-0", True),
        Annotation("ann", "HS-1", True),
        Annotation("bob", "HS-1", False, ambiguous=True, comment="which capital?"),
        Annotation("ann", "HS-2", None, leak=True),  # flagged, not decided: not judged
        Annotation("ann", "MT-0", False),
        Annotation("bob", "MT-0", False),
    ]
    s = summarize(sample, anns)
    hs, mt = s.per_type
    assert (hs.type, hs.n_sampled, hs.n_judged, hs.n_verdicts, hs.n_yes) == ("HS", 3, 2, 4, 3)
    assert hs.validity == pytest.approx((1.0 + 0.5) / 2)
    assert hs.flags == {"leak": 1, "ambiguous": 1, "ungrammatical": 0}
    assert (hs.ci_low, hs.ci_high) == pytest.approx(wilson_interval(0.75, 2))
    assert mt.validity == 0.0 and mt.n_judged == 1
    assert s.overall.validity == pytest.approx((1 + 0.5 + 0) / 3)
    assert s.score == pytest.approx(100 * (1.5 / 3))
    # Items judged by both: HS-0 (yes,yes), HS-1 (yes,no), MT-0 (no,no).
    assert s.kappa.n_items == 3 and s.kappa.value == fleiss_kappa([[2, 0], [1, 1], [0, 2]]).value
    assert s.annotators["ann"] == {"n_judged": 3, "n_yes": 2, "validity": pytest.approx(2 / 3)}
    assert s.n_comments == 1
    text = format_summary(s)
    assert "HS" in text and "75.0" in text and "Fleiss' kappa: 0.333" in text
    d = s.to_dict()
    assert d["score"] == pytest.approx(50.0) and d["per_type"][0]["score"] == pytest.approx(75.0)


def test_summary_of_an_empty_session_says_n_a():
    s = summarize(_rows(), [])
    assert s.score is None and s.per_type[0].validity is None
    assert "n/a" in format_summary(s)


def test_annotations_csv_has_every_field():
    sample = _rows()
    text = annotations_csv(sample, [Annotation("ann", "HS-1", False, leak=True, comment='a, "b"')])
    header, row = text.strip().split("\n")
    assert header.split(",")[:7] == [
        "annotator", "item_id", "type", "position", "question", "answer", "verdict",
    ]  # fmt: skip
    assert row.startswith("ann,HS-1,HS,1,q HS1,a,no,1,0,0,")
    assert '"a, ""b"""' in row
