"""`leakres tune`'s selection rule (tuning.RULE) on synthetic trial rows in tune.json's row format.

The floor (retain ratio, and BBH ratio with BBH on, >= 0.9 of the base; highest SH FQ among the
trials that forget something) and its stated fallback when no trial meets it (the highest utility
among the trials that forget something), with their tie-breaks.
"""

from __future__ import annotations

from typing import Any

from leakres_cli.commands.tune import tune_command
from leakres_cli.tuning import FALLBACK_RULE, FLOOR_RULE, RULE, eligible, select, utility


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


def test_none_eligible_takes_the_highest_retain_ratio_among_trials_that_forget() -> None:
    # The real GA table's shape: the gentlest trials forget nothing, none reaches 0.9.
    rows = [row(5e-6, 3, 0.0, 0.69), row(5e-6, 5, 0.0, 0.94), row(1e-5, 3, 0.25, 0.69),
            row(1e-5, 5, 0.375, 0.81), row(2e-5, 3, 0.5, 0.75), row(2e-5, 5, 1.0, 0.5)]  # fmt: skip
    chosen, floor_met = select(rows)
    assert floor_met is False and chosen["key"] == "lr=1e-05_epochs=5"  # not the highest FQ


def test_fallback_ties_go_to_the_higher_fq_then_the_gentler_setting() -> None:
    rows = [row(1e-5, 5, 0.25, 0.8), row(2e-5, 5, 0.5, 0.8), row(2e-5, 3, 0.5, 0.8)]
    assert select(rows) == (rows[2], False)  # same ratio: higher FQ, then fewer epochs


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
    # None at the floor: the lower of the two ratios ranks (0.85 beats min(0.95, 0.7) = 0.7).
    rows = [row(2e-5, 5, 1.0, 0.95, bbh=0.7), row(1e-5, 5, 0.25, 0.85, bbh=0.88)]
    assert [utility(r) for r in rows] == [0.7, 0.85]
    assert select(rows) == (rows[1], False)


def test_the_rule_is_stated_in_full_in_help() -> None:
    assert f"{FLOOR_RULE}; {FALLBACK_RULE}" == RULE
    for part in ("SH FQ > 0", ">= 0.9", "floor_met: false", "lower of the retain and BBH"):
        assert part in RULE
    assert RULE in " ".join((tune_command.help or "").split())
