"""`leakres tune`'s selection rule (tuning.RULE) on synthetic trial rows in tune.json's row format.

The floor (retain ratio, and BBH ratio with BBH on, >= 0.9 of the base; highest SH FQ among the
trials that forget something) and its stated fallback when no trial meets it (the same rule at a
relative floor: 0.9 x the utility of the grid's gentlest trial, capped at the best utility among
the trials that forget), with their tie-breaks.
"""

from __future__ import annotations

from typing import Any

import pytest
from leakres_cli.commands.tune import tune_command
from leakres_cli.tune.tuning import (
    FALLBACK_RULE,
    FLOOR_RULE,
    RULE,
    eligible,
    relative_floor,
    select,
    utility,
)


def row(lr: float, epochs: float, fq: float | None, retain: float | None,
        bbh: float | str | None = "off", alpha: float | None = None) -> dict[str, Any]:  # fmt: skip
    """A trial row as TuneSearch.trial writes it (the metrics' point estimates only)."""
    out: dict[str, Any] = {
        "key": f"lr={lr:g}_epochs={epochs:g}" + ("" if alpha is None else f"_alpha={alpha:g}"),
        "lr": lr, "epochs": epochs, "alpha": alpha,
        "fq_sh": {"value": fq}, "retain_ratio": {"value": retain},
        "bbh_ratio": None if bbh == "off" else {"value": bbh},
    }  # fmt: skip
    out["eligible"] = eligible(out)
    return out


def test_an_eligible_trial_wins_by_fq_over_a_more_forgetful_one_below_the_floor() -> None:
    rows = [row(2e-5, 5, 1.0, 0.5), row(1e-5, 5, 0.5, 0.94), row(1e-5, 3, 0.25, 1.0),
            row(5e-6, 3, 0.0, 1.0)]  # fmt: skip
    chosen, floor_met = select(rows)
    assert floor_met is True and chosen["key"] == "lr=1e-05_epochs=5"


def test_floor_ties_go_to_the_higher_retain_ratio_then_the_gentler_setting() -> None:
    rows = [row(2e-5, 3, 0.75, 0.95), row(2e-5, 5, 0.75, 1.0), row(1e-5, 5, 0.75, 1.0)]
    assert select(rows) == (rows[2], True)  # same FQ and retain: smaller lr
    assert select(rows[:2]) == (rows[1], True)  # same FQ: higher retain ratio
    same = [row(1e-5, 5, 0.5, 1.0), row(1e-5, 3, 0.5, 1.0)]
    assert select(same) == (same[1], True)  # then fewer epochs
    tv = [row(3e-5, 5, 0.5, 1.0, alpha=4.0), row(3e-5, 5, 0.5, 1.0, alpha=1.0)]
    assert select(tv) == (tv[1], True)  # then the smaller alpha


def test_an_eligible_trial_that_forgets_nothing_is_not_chosen() -> None:
    rows = [row(5e-6, 3, 0.0, 1.0), row(1e-5, 5, 0.25, 0.8)]
    assert select(rows) == (rows[1], False)  # the fallback, not the no-op trial at the floor


def test_none_eligible_relaxes_the_floor_to_the_gentlest_trials_utility() -> None:
    # The real GA table (SmolLM2-135M, 8/16 validation facts, grid around lr 1e-5 x 5): the
    # gentlest trial forgets nothing yet keeps only 11 of 16 retain facts, none reaches 0.9.
    rows = [row(5e-6, 3, 0.0, 0.6875), row(5e-6, 5, 0.0, 0.6875), row(1e-5, 3, 0.25, 0.6875),
            row(1e-5, 5, 0.375, 0.8125), row(2e-5, 3, 0.5, 0.75), row(2e-5, 5, 0.875, 0.3125)]  # fmt: skip
    assert relative_floor(rows) == (pytest.approx(0.9 * 0.6875), "lr=5e-06_epochs=3", "gentlest")
    chosen, floor_met = select(rows)
    # The most forgetful at or above 0.62: not the one that keeps most (1e-5 x 5), not 2e-5 x 5.
    assert floor_met is False and chosen["key"] == "lr=2e-05_epochs=3"


def test_the_relative_floor_is_a_fixed_point_where_the_former_fallback_drifted() -> None:
    # The real TV table around lr 1.5e-5 x 3 (alpha 1): "highest retain among trials that forget"
    # took lr 1.5e-5 x 2, which forgets 1 of 8 facts, for one more kept retain fact.
    rows = [row(7.5e-6, 2, 0.0, 0.6875, alpha=1.0), row(7.5e-6, 3, 0.0, 0.8125, alpha=1.0),
            row(1.5e-5, 2, 0.125, 0.8125, alpha=1.0), row(1.5e-5, 3, 0.5, 0.6875, alpha=1.0),
            row(3e-5, 2, 0.375, 0.6875, alpha=1.0), row(3e-5, 3, 0.75, 0.5625, alpha=1.0)]  # fmt: skip
    assert select(rows) == (rows[3], False)


def test_the_relative_floor_is_capped_at_the_best_utility_among_trials_that_forget() -> None:
    # The gentlest trial keeps everything and forgets nothing: capped, one trial always qualifies.
    rows = [row(1e-7, 5, 0.0, 0.95), row(2e-5, 5, 0.75, 0.5), row(4e-5, 5, 1.0, 0.25)]
    assert relative_floor(rows) == (0.5, "lr=2e-05_epochs=5", "cap")
    assert select(rows) == (rows[1], False)
    assert relative_floor([row(1e-7, 5, 0.0, 0.95)]) is None  # nothing forgets: no floor


def test_fallback_ties_go_to_the_higher_utility_then_the_gentler_setting() -> None:
    rows = [row(1e-5, 3, 0.25, 0.6), row(1e-5, 5, 0.5, 0.7), row(2e-5, 3, 0.5, 0.8),
            row(2e-5, 5, 0.5, 0.8)]  # fmt: skip
    assert select(rows) == (rows[2], False)  # same FQ: higher utility, then fewer epochs
    same = [row(1e-5, 3, 0.25, 0.6), row(4e-5, 3, 0.5, 0.7), row(2e-5, 5, 0.5, 0.7)]
    assert select(same) == (same[2], False)  # same FQ and utility: the smaller lr


def test_nothing_forgotten_or_undefined_chooses_nothing() -> None:
    assert select([row(5e-6, 3, 0.0, 1.0), row(5e-6, 5, 0.0, 0.5)]) == (None, False)
    assert select([row(1e-5, 5, None, 1.0)]) == (None, False)  # undefined FQ: never chosen
    assert select([]) == (None, False)
    undefined_retain = row(1e-5, 5, 0.5, None)
    assert undefined_retain["eligible"] is False and utility(undefined_retain) is None
    assert select([undefined_retain]) == (None, False)


def test_bbh_on_needs_both_ratios_at_the_floor_and_falls_back_on_the_lower_one() -> None:
    good_retain_bad_bbh = row(2e-5, 5, 1.0, 1.0, bbh=0.8)
    both = row(1e-5, 5, 0.5, 0.9, bbh=0.95)
    assert good_retain_bad_bbh["eligible"] is False and both["eligible"] is True
    assert select([good_retain_bad_bbh, both]) == (both, True)
    assert row(1e-5, 5, 0.5, 1.0, bbh=None)["eligible"] is False  # undefined BBH ratio
    # None at the floor: the lower of the two ratios is the utility; 0.9 x the gentlest trial's
    # min(0.85, 0.88) is the relative floor, 0.765, which min(0.95, 0.7) = 0.7 misses.
    rows = [row(2e-5, 5, 1.0, 0.95, bbh=0.7), row(1e-5, 5, 0.25, 0.85, bbh=0.88)]
    assert [utility(r) for r in rows] == [0.7, 0.85]
    assert relative_floor(rows) == (pytest.approx(0.765), "lr=1e-05_epochs=5", "gentlest")
    assert select(rows) == (rows[1], False)


def test_the_rule_is_stated_in_full_in_help() -> None:
    assert f"{FLOOR_RULE}; {FALLBACK_RULE}" == RULE
    for part in ("SH FQ > 0", ">= 0.9", "floor_met: false", "gentlest trial",
                 "lower of the retain and BBH"):  # fmt: skip
        assert part in RULE
    assert RULE in " ".join((tune_command.help or "").split())
