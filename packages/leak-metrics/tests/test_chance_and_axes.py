"""Issue 25 items 4-7: robustness over (attack, hop) cells, chance levels and chance-corrected
numbers, the at-chance gate on FQ, the guessing floor of an any-of-N attack, and the utility axis.

Every expectation is computed by hand in the comment beside it.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from leak_metrics import (
    MetricValue,
    base_at_chance,
    chance_corrected_accuracy,
    chance_corrected_forget_quality,
    chance_level,
    forget_quality,
    guessing_recoveries,
    robustness,
    robustness_by_cell,
    too_small_to_judge,
    type_chance,
    utility_axis,
)
from leak_metrics.report import forget_quality_heatmap, forget_quality_table, radar_chart
from leak_metrics.report.tables import format_cell

T, F = True, False


def _hits(k: int, n: int) -> list[bool]:
    return [True] * k + [False] * (n - k)


# ----------------------------------------------------------------- item 4: robustness per cell
def test_robustness_is_one_minus_the_largest_attack_hop_cell() -> None:
    # Default run shape: Probab recovers 4 of 10 single-hop and 7 of 10 multi-hop items.
    cells = {("probab", "SH"): _hits(4, 10), ("probab", "MH"): _hits(7, 10)}
    metric, set_by = robustness_by_cell(cells)
    assert metric.value == pytest.approx(1 - 0.7)  # 30.0, the paper's definition
    assert set_by == [("probab", "MH")]
    assert metric.n == 10
    assert metric.ci_low <= metric.value <= metric.ci_high
    # The pooled figure leakres used before: 1 - 11/20 = 45.0.
    pooled = robustness({"probab": _hits(4, 10) + _hits(7, 10)})
    assert pooled.value == pytest.approx(0.45)


def test_robustness_names_every_cell_at_the_max_and_ignores_undefined_cells() -> None:
    cells = {
        ("probab", "SH"): _hits(1, 4),  # 0.25
        ("probab", "MH"): _hits(1, 2),  # 0.5
        ("quantization", "SH"): [T, T, F, F],  # 0.5: tied
        ("quantization", "MH"): [None, None],  # no judged item: ignored
    }
    metric, set_by = robustness_by_cell(cells)
    assert metric.value == pytest.approx(0.5)
    assert set_by == [("probab", "MH"), ("quantization", "SH")]
    assert metric.n_unjudged == 2


def test_robustness_counts_an_unjudged_item_as_neither_recovered_nor_not() -> None:
    metric, set_by = robustness_by_cell({("a", "SH"): [T, None, F, F], ("a", "MH"): [F, F]})
    assert metric.value == pytest.approx(1 - 1 / 3) and set_by == [("a", "SH")]
    assert metric.n == 3 and metric.n_unjudged == 1


def test_an_empty_hop_is_ignored() -> None:
    # GA forgot no multi-hop item: the MH cell is empty, robustness is the SH cell's 1 - 1/3.
    metric, set_by = robustness_by_cell({("a", "SH"): [T, F, F], ("a", "MH"): []})
    assert metric.value == pytest.approx(2 / 3) and set_by == [("a", "SH")]
    assert metric.ci_low <= metric.value <= metric.ci_high


def test_robustness_without_a_defined_cell_is_undefined() -> None:
    metric, set_by = robustness_by_cell({("a", "SH"): [], ("a", "MH"): [None]})
    assert metric.value is None and set_by == []
    assert metric.undefined_reason == "RR undefined for every (attack, hop) cell"


def test_cells_of_one_hop_are_paired_and_must_cover_the_same_items() -> None:
    # Two attacks with identical verdicts on the same items: the max is that one cell, so the CI
    # is exactly the single cell's (paired resampling; independent draws would widen it).
    same = _hits(3, 12)
    paired, _ = robustness_by_cell({("a", "MH"): same, ("b", "MH"): same}, seed=3)
    alone, _ = robustness_by_cell({("a", "MH"): same}, seed=3)
    assert (paired.ci_low, paired.ci_high) == (alone.ci_low, alone.ci_high)
    with pytest.raises(ValueError, match=r"cell \(b, MH\): 3 items, but another MH cell has 12"):
        robustness_by_cell({("a", "MH"): same, ("b", "MH"): [T, F, F]})


# ----------------------------------------------------------------- item 5: chance
def test_chance_level_of_yes_no_options_and_open_questions() -> None:
    assert chance_level(["yes", "no"]) == 0.5
    assert chance_level(["France", "Peru", "Chile"]) == pytest.approx(1 / 3)
    assert chance_level([]) == 0.0 and chance_level(["only"]) == 0.0
    # a type mixes 3- and 4-option items: (1/3 + 1/4) / 2
    assert type_chance([["a", "b", "c"], ["a", "b", "c", "d"]]) == pytest.approx(7 / 24)
    assert type_chance([]) == 0.0


def test_chance_corrected_accuracy_and_fq() -> None:
    # 3 of 4 at chance 1/2: (0.75 - 0.5) / 0.5 = 0.5; the CI maps the same way.
    acc = chance_corrected_accuracy([T, T, T, F], 0.5)
    assert acc.value == pytest.approx(0.5) and acc.n == 4
    assert acc.ci_low <= acc.value <= acc.ci_high <= 1.0
    # Base 8/10, unlearned 5/10 (a coin flip) on yes/no: the paper's FQ 1 - 0.5/0.8 = 0.375,
    # chance-corrected 1 - (0.5 - 0.5)/(0.8 - 0.5) = 1.0 (all knowledge above chance is gone).
    base, unlearned = _hits(8, 10), _hits(5, 10)
    assert forget_quality(base, unlearned).value == pytest.approx(0.375)
    fq_cc = chance_corrected_forget_quality(base, unlearned, 0.5)
    assert fq_cc.value == pytest.approx(1.0) and fq_cc.n == 10
    # With chance 0 it is the paper's FQ, CI included.
    assert chance_corrected_forget_quality(base, unlearned, 0.0) == forget_quality(base, unlearned)
    # Base at chance: undefined, with the reason.
    at = chance_corrected_forget_quality(_hits(5, 10), _hits(2, 10), 0.5)
    assert (
        at.value is None and at.undefined_reason == "base accuracy does not exceed chance (0.500)"
    )
    with pytest.raises(ValueError, match="chance must be in"):
        chance_corrected_accuracy([T], 1.0)


def test_guessing_recoveries_under_any_of_n() -> None:
    # yes/no with 5 samples: 1 - 0.5**5 = 0.96875; 3 options: 1 - (2/3)**5 = 0.868313; open: 0
    assert guessing_recoveries([0.5, 1 / 3, 0.0], [5, 5, 5]) == pytest.approx(
        0.96875 + 0.8683127572
    )
    assert guessing_recoveries([0.5, 0.5], [1, 1]) == pytest.approx(1.0)  # greedy: chance each
    with pytest.raises(ValueError, match="2 chance levels but 1 sample counts"):
        guessing_recoveries([0.5, 0.5], [5])


# ----------------------------------------------------------------- item 6: the at-chance gate
def test_a_type_the_base_model_answers_at_chance_is_named_with_its_counts() -> None:
    # The full run's MT: 11 of 22 yes/no right; the CI (about [0.27, 0.73]) contains 1/2.
    assert base_at_chance(_hits(11, 22), 0.5, "MT") == "base model at chance on MT (11 of 22)"
    # DS 1 of 8 at chance 1/3 (the CI reaches 1/3).
    assert base_at_chance(_hits(1, 8), 1 / 3, "DS") == "base model at chance on DS (1 of 8)"
    # An open type has no chance level: MP 0 of 15 and 2 of 43 are "too few known", not "at chance"
    # (issue 36 item 5); so is 4 right of 5 (well above 0 but fewer than 5 right).
    assert base_at_chance(_hits(0, 15), 0.0, "MP") == "too few known on MP (0 of 15)"
    assert base_at_chance(_hits(2, 43), 0.0, "MP") == "too few known on MP (2 of 43)"
    assert base_at_chance(_hits(4, 5), 0.0, "HS") == "too few known on HS (4 of 5)"
    # The full preset's MT: 6 of 29 yes/no right, the CI (about [0.07, 0.34]) wholly below 1/2:
    # the answers evade or invert the options, which "at chance" would hide.
    assert base_at_chance(_hits(6, 29), 0.5, "MT") == (
        "base model below chance on MT (6 of 29): answers evade the options"
    )
    # Known types: 20 of 22 yes/no (CI low ~0.82 > 0.5); 5 of 10 open (CI low 0.2 > 0).
    assert base_at_chance(_hits(20, 22), 0.5, "MT") is None
    assert base_at_chance(_hits(5, 10), 0.0, "HS") is None
    # Unjudged answers are not counted either way; nothing judged: no verdict here.
    assert base_at_chance([None, None], 0.5, "MT") is None
    assert base_at_chance([*_hits(6, 6), None], 0.0, "SH") is None


# ----------------------------------------------------------------- item 7: the utility axis
def test_utility_axis_is_the_lower_ratio_and_ignores_a_bbh_ratio_too_small_to_judge() -> None:
    # The full run's PALU: 1 of 24 retain facts kept, BBH 88.9 [62, 100] on 15 items.
    retain = MetricValue(1 / 24, 0.0, 0.13, 24)
    bbh = MetricValue(0.889, 0.62, 1.0, 15)
    assert too_small_to_judge(bbh) == (
        "too small to judge: 95% CI half-width 19.0 points > 10 (15 items)"
    )
    axis = utility_axis(retain, bbh)
    assert axis.metric == retain and axis.basis == "retain" and axis.bbh_too_small
    # A precise BBH ratio below the retain ratio is the axis.
    precise = MetricValue(0.6, 0.55, 0.65, 400)
    assert too_small_to_judge(precise) is None
    axis = utility_axis(MetricValue(0.9, 0.85, 0.95, 24), precise)
    assert axis.metric == precise and axis.basis == "bbh" and axis.bbh_too_small is None
    # A precise BBH above the retain ratio: the retain ratio (the lower one) is the axis.
    assert utility_axis(MetricValue(0.5, 0.3, 0.7, 24), precise).basis == "retain"
    # BBH off: the retain ratio; both undefined: undefined with the reason.
    assert utility_axis(retain, None).basis == "retain"
    none = utility_axis(MetricValue.undefined("base accuracy is 0", 24), None)
    assert none.metric.value is None and none.basis is None
    assert none.metric.undefined_reason == "base accuracy is 0"
    # A BBH ratio with no CI cannot be judged either.
    assert too_small_to_judge(MetricValue(0.9, None, None, 3)).startswith("too small to judge")


# ----------------------------------------------------------------- reports
AT_CHANCE = MetricValue.undefined("base model at chance on MT (11 of 22)", 22)
ROWS = [
    {"model": "M", "method": "GA", "type": "SH", "metric": MetricValue(0.6, 0.5, 0.7, 48)},
    {"model": "M", "method": "GA", "type": "MT", "metric": AT_CHANCE},
    {"model": "M", "method": "GA", "type": "DS", "metric": MetricValue(0.2, 0.0, 0.4, 40)},
]


def test_tables_show_the_at_chance_reason_and_each_types_chance() -> None:
    chance = {"SH": 0.0, "MT": 0.5, "DS": 1 / 3}
    md = forget_quality_table(ROWS, chance=chance, show_ci=False)
    assert "| Method | SH | MT (chance 50%) | DS (chance 33%) |" in md
    assert "| GA | 60.0 | n/a: base model at chance on MT (11 of 22) | 20.0 |" in md
    rows = list(csv.DictReader(io.StringIO(forget_quality_table(ROWS, "csv", chance=chance))))
    assert rows[0]["MT"] == "n/a: base model at chance on MT (11 of 22)"
    assert float(rows[0]["MT_chance"]) == 0.5 and "SH_chance" not in rows[0]
    latex = forget_quality_table(ROWS, "latex", chance=chance, show_ci=False)
    assert "MT (chance 50\\%)" in latex and "n/a: base model at chance on MT (11 of 22)" in latex
    # A caption given for a table that is not the paper's heads the Markdown table.
    own = forget_quality_table(ROWS, caption="leakres' own", show_ci=False)
    assert own.startswith("_leakres' own_\n\n")


def test_plots_carry_the_at_chance_reason_and_a_legend_note(tmp_path: Path) -> None:
    heat = forget_quality_heatmap(ROWS, tmp_path / "heat")
    svg = next(p for p in heat if p.suffix == ".svg").read_text()
    assert "at chance" in svg and "(11 of 22)" in svg
    few = [{**ROWS[0], "metric": MetricValue.undefined("too few known on MP (2 of 43)", 43)}]
    svg = next(p for p in forget_quality_heatmap(few, tmp_path / "few") if p.suffix == ".svg")
    assert "too few known" in svg.read_text() and "(2 of 43)" in svg.read_text()
    assert format_cell(few[0]["metric"]) == "n/a: too few known on MP (2 of 43)"
    radar = radar_chart(
        {"GA": {"forget_quality": ROWS[0]["metric"], "robustness": MetricValue(0.3, 0.1, 0.5, 10),
                "utility": MetricValue(0.04, 0.0, 0.13, 24), "note": "utility: retain ratio"}},
        "M", tmp_path / "radar",
    )  # fmt: skip
    assert "utility: retain ratio" in next(p for p in radar if p.suffix == ".svg").read_text()
