"""Issue 38's library functions, each checked against a definition worked out by hand."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from leak_metrics.comparisons import (
    compare_forget_quality,
    describe,
    holm,
    paired_difference,
    with_holm,
)
from leak_metrics.controls import (
    false_recovery_rate,
    knowledge_free_forget_quality,
    net_recovery,
)
from leak_metrics.curves import any_of_n_curve, budget_to_reach, curve_area, worst_case
from leak_metrics.datatypes import MetricValue
from leak_metrics.metrics import forget_quality
from leak_metrics.seeds import summarize_seeds

# five items, four samples each, in draw order
SAMPLES = [
    [False, False, True, False],  # recovered from N = 3
    [True, False, False, False],  # from N = 1
    [False, False, False, False],  # never
    [False, True, None, True],  # from N = 2
    [None, None, None, None],  # never judged
]


def test_any_of_n_curve_by_hand() -> None:
    curve = any_of_n_curve(SAMPLES, [1, 2, 3, 4], n_resamples=200)
    # judged items per rung: 4 (the all-None item is left out); recovered 1, 2, 3, 3
    assert [curve[n].value for n in (1, 2, 3, 4)] == [0.25, 0.5, 0.75, 0.75]
    assert all(curve[n].n == 4 and curve[n].n_unjudged == 1 for n in curve)


def test_any_of_n_curve_is_monotone_with_monotone_bounds() -> None:
    rng = np.random.default_rng(3)
    samples = (rng.random((60, 20)) < 0.08).tolist()
    curve = any_of_n_curve(samples, [1, 2, 5, 10, 20], n_resamples=300)
    for lo, hi in itertools.pairwise(sorted(curve)):
        assert curve[lo].value <= curve[hi].value
        assert curve[lo].ci_low <= curve[hi].ci_low and curve[lo].ci_high <= curve[hi].ci_high
    # the largest rung is the plain any-of-20 rate
    assert curve[20].value == pytest.approx(np.mean([any(s) for s in samples]))


def test_any_of_n_curve_errors_and_empty() -> None:
    with pytest.raises(ValueError, match="item 1: 2 samples, but the ladder asks for N = 3"):
        any_of_n_curve([[True, False, False], [True, False]], [1, 3])
    with pytest.raises(ValueError, match="positive"):
        any_of_n_curve(SAMPLES, [0, 1])
    empty = any_of_n_curve([], [1, 5])
    assert not empty[1].defined and empty[5].undefined_reason == "S_suc is empty"


def test_budget_to_reach_and_area() -> None:
    curve = {
        n: MetricValue(v, None, None, 10) for n, v in ((1, 0.1), (2, 0.3), (5, 0.6), (10, 0.6))
    }
    assert budget_to_reach(curve, 0.3) == 2
    assert budget_to_reach(curve, 0.61) is None
    # trapezoids over three unit intervals: (0.2 + 0.45 + 0.6) / 3
    assert curve_area(curve) == pytest.approx((0.2 + 0.45 + 0.6) / 3)
    assert curve_area({4: MetricValue(0.4, None, None, 5)}) == 0.4
    assert curve_area({1: MetricValue.undefined("x"), 2: MetricValue(0.5, None, None, 3)}) is None


def test_worst_case_over_budgets() -> None:
    values = {
        1: MetricValue(0.8, 0.7, 0.9, 20),
        5: MetricValue(0.4, 0.2, 0.6, 20),
        20: MetricValue.undefined("x"),
    }
    value, budget = worst_case(values)
    assert budget == 5 and value.value == 0.4
    assert worst_case({1: MetricValue.undefined("x")})[1] is None


def test_identical_inputs_give_p_one_and_zero_difference() -> None:
    a = [True, False, True, True, False, None, True]
    c = paired_difference(a, list(a), n_permutations=500)
    assert c.difference == 0.0 and c.p_value == 1.0 and c.n == 6


def test_sign_flip_p_value_exact_on_a_small_case() -> None:
    # 6 items where a is right and b wrong: mean(d) = 1; a sign flip keeps |mean| = 1 only when
    # all six signs agree (2 of 64 patterns), so p -> (1 + 10000 * 2/64) / 10001 ~= 0.0313
    c = paired_difference([True] * 6, [False] * 6, n_permutations=10000, seed=1)
    assert c.difference == 1.0
    assert c.p_value == pytest.approx(2 / 64, abs=0.006)


def test_holm_by_hand() -> None:
    # m = 4; sorted 0.01, 0.02, 0.03, 0.5 -> 0.04, 0.06, 0.06 (running max of 0.06), 0.5
    assert holm([0.03, 0.5, 0.01, None, 0.02]) == pytest.approx([0.06, 0.5, 0.04, None, 0.06])
    assert holm([0.4, 0.6]) == [0.8, 0.8]  # 2 * 0.4 = 0.8; max(0.8, 1 * 0.6) = 0.8
    assert holm([]) == []


def test_compare_forget_quality_matches_fq_difference() -> None:
    rng = np.random.default_rng(0)
    base = (rng.random(50) < 0.8).tolist()
    a = [b and r < 0.2 for b, r in zip(base, rng.random(50), strict=True)]
    b = [b and r < 0.6 for b, r in zip(base, rng.random(50), strict=True)]
    c = compare_forget_quality(base, a, b, n_permutations=2000)
    expected = forget_quality(base, a).value - forget_quality(base, b).value
    assert c.difference == pytest.approx(expected)
    assert c.ci_low < c.difference < c.ci_high
    assert c.p_value < 0.01  # forgetting 80% vs 40% of 40 known items
    assert compare_forget_quality([False] * 3, [False] * 3, [True] * 3).difference is None


def test_describe_wording() -> None:
    c = with_holm(
        [paired_difference([True] * 30, [False] * 10 + [True] * 20, n_permutations=2000)]
    )[0]
    line = describe("GA", "NPO", "forgets MT", c)
    assert line.startswith("GA forgets MT better than NPO: +33.3 points [") and "(Holm)" in line
    flipped = describe(
        "NPO", "GA", "forgets MT", paired_difference([False] * 10 + [True] * 20, [True] * 30)
    )
    assert flipped.startswith("GA forgets MT better than NPO: +33.3 points")
    same = describe("GA", "NPO", "forgets MT", paired_difference([True, False], [True, False]))
    assert "no significant difference" in same and "p = 1.000" in same


def test_false_recovery_and_net() -> None:
    base = [True, False, False, None, False]
    attack = [True, True, False, True, None]
    frr = false_recovery_rate(base, attack, n_resamples=100)
    assert frr.value == 0.5 and frr.n == 2 and frr.n_unjudged == 1
    assert net_recovery(MetricValue(0.7, None, None, 10), frr) == pytest.approx(0.2)
    assert not false_recovery_rate([True], [True]).defined


def test_knowledge_free_forget_quality() -> None:
    # base 3 of 4 right; chances 1/3, 1/3, 1/2, 0 -> mean 7/24; FQ = 1 - (7/24) / (3/4)
    assert knowledge_free_forget_quality(
        [True, True, False, True], [1 / 3, 1 / 3, 0.5, 0.0]
    ) == pytest.approx(1 - (7 / 24) / 0.75)
    assert knowledge_free_forget_quality([True, True], [0.0, 0.0]) == 1.0
    assert knowledge_free_forget_quality([False], [0.5]) is None


def test_seed_summary() -> None:
    s = summarize_seeds(
        {
            2: MetricValue(0.5, None, None, 9),
            0: MetricValue(0.3, None, None, 9),
            1: MetricValue.undefined("x"),
        }
    )
    assert s.mean == pytest.approx(0.4) and s.std == pytest.approx(np.std([0.3, 0.5], ddof=1))
    assert list(s.per_seed) == [0, 1, 2] and s.per_seed[1] is None and s.n_defined == 2
