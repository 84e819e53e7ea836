"""Paired robustness comparison and seed-averaged verdicts (issue 38 item 2), checked by hand."""

from __future__ import annotations

import numpy as np
import pytest
from leak_metrics import robustness_by_cell
from leak_metrics.comparisons import compare_forget_quality, compare_robustness, paired_difference
from leak_metrics.metrics import forget_quality


def _by_cell(run: dict[str, list], hops: list[str]) -> float:
    cells = {
        (attack, hop): [v for v, h in zip(values, hops, strict=True) if h == hop and v is not None]
        for attack, values in run.items()
        for hop in ("SH", "MH")
    }
    return robustness_by_cell(cells)[0].value


def test_robustness_difference_by_hand() -> None:
    # A: probab recovers 1 of 2 SH items (0.5) and 1 of 3 MH (1/3) -> robustness 0.5.
    # B: probab recovers 0 of 1 SH and 3 of 4 MH -> robustness 0.25. Difference +0.25.
    hops = ["SH", "SH", "SH", "MH", "MH", "MH", "MH"]
    a = [{"probab": [True, False, None, True, False, False, None]}]
    b = [{"probab": [None, None, False, True, True, True, False]}]
    c = compare_robustness(a, b, hops, n_permutations=500, n_resamples=200)
    assert c.difference == pytest.approx(0.25)
    assert c.difference == pytest.approx(_by_cell(a[0], hops) - _by_cell(b[0], hops))
    assert c.n == 7 and c.ci_low <= c.difference <= c.ci_high


def test_robustness_of_identical_inputs_has_p_one() -> None:
    hops = ["SH", "MH", "MH", "SH"]
    a = [{"probab": [True, None, False, False], "quant": [False, True, None, None]}]
    c = compare_robustness(a, [dict(r) for r in a], hops, n_permutations=300)
    assert c.difference == 0.0 and c.p_value == 1.0


def test_robustness_mean_over_seeds_and_a_clear_difference() -> None:
    # A never recovered, B always recovered, on 12 items in S_suc for both: 1 - 0 vs 1 - 1.
    hops = ["SH"] * 6 + ["MH"] * 6
    a = [{"probab": [False] * 12}, {"probab": [False] * 11 + [None]}]
    b = [{"probab": [True] * 12}, {"probab": [True] * 12}]
    c = compare_robustness(a, b, hops, n_permutations=4000)
    assert c.difference == pytest.approx(1.0)
    # swap permutations keep |stat| = 1 only when all 12 items swap together: p ~ 2 / 4096
    assert c.p_value < 0.01
    with pytest.raises(ValueError, match="runs x attacks"):
        compare_robustness(a, b[:1], hops)


def test_robustness_undefined_when_a_method_has_no_cell() -> None:
    hops = ["SH", "MH"]
    c = compare_robustness([{"probab": [None, None]}], [{"probab": [True, False]}], hops)
    assert c.difference is None and c.p_value is None
    assert compare_robustness([{}], [{}], hops).difference is None


def test_seed_averaged_verdicts_give_the_seed_mean_fq_difference() -> None:
    rng = np.random.default_rng(3)
    base = (rng.random(40) < 0.9).tolist()
    seeds_a = [(rng.random(40) < 0.3).tolist() for _ in range(3)]
    seeds_b = [(rng.random(40) < 0.7).tolist() for _ in range(3)]
    mean_a = [float(np.mean(v)) for v in zip(*seeds_a, strict=True)]
    mean_b = [float(np.mean(v)) for v in zip(*seeds_b, strict=True)]
    c = compare_forget_quality(base, mean_a, mean_b, n_permutations=2000)
    fq_a = np.mean([forget_quality(base, s).value for s in seeds_a])
    fq_b = np.mean([forget_quality(base, s).value for s in seeds_b])
    assert c.difference == pytest.approx(fq_a - fq_b)
    assert c.p_value < 0.01
    # a float verdict is not rounded to a bool any more
    assert paired_difference([0.5, 0.5], [0.0, 0.0]).difference == pytest.approx(0.5)
