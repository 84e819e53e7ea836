"""Every metric on hand-built cases whose result is known in closed form."""

from __future__ import annotations

import math

import pytest
from leak_metrics import (
    JudgeItem,
    MetricValue,
    MultiResponseItem,
    Verdict,
    accuracy,
    agreement,
    forget_quality,
    forget_quality_by_type,
    get_judge,
    judge_any,
    recovery_rate,
    recovery_rate_by_hop,
    robustness,
    successfully_unlearned,
    utility_ratio,
)


def contains(metric: MetricValue) -> bool:
    assert metric.value is not None and metric.ci_low is not None and metric.ci_high is not None
    return metric.ci_low <= metric.value <= metric.ci_high


def test_accuracy_value_ci_and_unjudged_count() -> None:
    result = accuracy([True, True, False, None, True, False, None, True])
    assert result.value == pytest.approx(4 / 6)
    assert result.n == 6
    assert result.n_unjudged == 2
    assert contains(result)
    assert 0.0 <= result.ci_low < result.value < result.ci_high <= 1.0  # type: ignore[operator]


def test_accuracy_undefined_without_judged_items() -> None:
    result = accuracy([None, None])
    assert result.value is None and result.n == 0 and result.n_unjudged == 2
    assert result.undefined_reason == "no judged items"


def test_forget_quality_known_value() -> None:
    base = [True] * 8 + [False] * 2  # Acc_p = 0.8
    unlearned = [True] * 2 + [False] * 8  # Acc_u = 0.2
    result = forget_quality(base, unlearned, seed=1)
    assert result.value == pytest.approx(1 - 0.2 / 0.8)
    assert result.n == 10
    assert contains(result)


def test_forget_quality_negative_when_accuracy_rises() -> None:
    base = [True, False, False, False]  # 0.25
    unlearned = [True, True, False, False]  # 0.5
    result = forget_quality(base, unlearned)
    assert result.value == pytest.approx(-1.0)
    assert contains(result)


def test_forget_quality_undefined_when_base_accuracy_is_zero() -> None:
    result = forget_quality([False, False, False], [True, False, False])
    assert result.value is None
    assert result.undefined_reason == "base accuracy is 0"
    assert result.to_dict()["value"] is None
    assert result.ci_low is None and result.ci_high is None


def test_forget_quality_drops_pairs_unjudged_on_either_side() -> None:
    result = forget_quality([True, True, None, True], [False, None, True, True])
    # Kept pairs: (T,F), (T,T) -> Acc_p = 1, Acc_u = 0.5
    assert result.value == pytest.approx(0.5)
    assert (result.n, result.n_unjudged) == (2, 2)


def test_bootstrap_is_deterministic_under_seed_and_varies_with_it() -> None:
    base = [True, True, False, True, True, False, True, True, True, False] * 3
    unlearned = [False, True, False, False, True, False, False, True, False, True] * 3
    a = forget_quality(base, unlearned, seed=7)
    b = forget_quality(base, unlearned, seed=7)
    c = forget_quality(base, unlearned, seed=8)
    assert a == b
    assert (a.ci_low, a.ci_high) != (c.ci_low, c.ci_high)
    assert a.value == c.value


def test_successfully_unlearned_and_recovery_rate() -> None:
    base = {"a": True, "b": True, "c": False, "d": True, "e": None}
    unlearned = {"a": False, "b": True, "c": False, "d": False, "e": False}
    s_suc = successfully_unlearned(base, unlearned)
    assert s_suc == ["a", "d"]
    rr = recovery_rate([True, False])
    assert rr.value == pytest.approx(0.5) and rr.n == 2
    empty = recovery_rate([])
    assert empty.value is None and "S_suc is empty" in (empty.undefined_reason or "")


def test_successfully_unlearned_rejects_missing_ids() -> None:
    with pytest.raises(ValueError, match="'b'"):
        successfully_unlearned({"a": True, "b": True}, {"a": False})


def test_recovery_rate_by_hop_separates_single_and_multi_hop() -> None:
    records = [
        {"id": "1", "type": "SH", "recovered": True},
        {"id": "2", "type": "SH", "recovered": False},
        {"id": "3", "type": "SH", "recovered": False},
        {"id": "4", "type": "HS", "recovered": True},
        {"id": "5", "type": "MT", "recovered": True},
        {"id": "6", "type": "DS", "recovered": None},
    ]
    result = recovery_rate_by_hop(records)
    assert result["SH"].value == pytest.approx(1 / 3)
    assert result["MH"].value == pytest.approx(1.0) and result["MH"].n_unjudged == 1
    assert result["all"].value == pytest.approx(3 / 5)
    only_sh = recovery_rate_by_hop([{"id": "1", "type": "SH", "recovered": True}])
    assert only_sh["MH"].value is None
    with pytest.raises(ValueError, match="unknown question type 'XX'"):
        recovery_rate_by_hop([{"id": "1", "type": "XX", "recovered": True}])
    # a type this library does not know (a kg-qgen plugin's) counts once the caller names it
    plugin = [
        {"id": "1", "type": "XX", "recovered": True},
        {"id": "2", "type": "HS", "recovered": False},
    ]
    by_hop = recovery_rate_by_hop(plugin, multi_hop_types={"XX", "HS"})
    assert by_hop["MH"].value == pytest.approx(1 / 2) and by_hop["SH"].value is None


def test_robustness_is_one_minus_max_rr() -> None:
    from_sequences = robustness(
        {"probab": [True, False, False, False], "quant": [True, True, False, False]}
    )
    assert from_sequences.value == pytest.approx(0.5)
    assert contains(from_sequences)
    from_values = robustness(
        {
            "probab": MetricValue(0.25, 0.1, 0.4, 20),
            "quant": MetricValue(0.6, 0.5, 0.7, 20),
            "fok": MetricValue.undefined("S_suc is empty"),
        }
    )
    assert from_values.value == pytest.approx(0.4)
    assert (from_values.ci_low, from_values.ci_high) == pytest.approx((0.3, 0.5))
    assert robustness({"fok": MetricValue.undefined("S_suc is empty")}).value is None


def test_utility_ratio_and_its_undefined_case() -> None:
    result = utility_ratio([True, True, True, False], [True, False, True, False])
    assert result.value == pytest.approx((2 / 4) / (3 / 4))
    assert contains(result)
    assert utility_ratio([False, False], [True, False]).undefined_reason == "base BBH accuracy is 0"


def test_forget_quality_by_type() -> None:
    types = {"1": "SH", "2": "SH", "3": "HS", "4": "HS"}
    base = {"1": True, "2": True, "3": False, "4": False}
    unl = {"1": False, "2": True, "3": True, "4": False}
    result = forget_quality_by_type(base, unl, types)
    assert result["SH"].value == pytest.approx(0.5)
    assert result["HS"].value is None


def test_cohen_kappa_on_known_table() -> None:
    # Both yes 20, A yes/B no 5, A no/B yes 10, both no 15: p_o = 0.7, p_e = 0.5, kappa = 0.4.
    pairs = [(True, True)] * 20 + [(True, False)] * 5 + [(False, True)] * 10 + [(False, False)] * 15
    a = [Verdict(x, "", "alias", str(i)) for i, (x, _) in enumerate(pairs)]
    b = [Verdict(y, "", "llm", str(i)) for i, (_, y) in enumerate(pairs)]
    a.append(Verdict(True, "", "alias", "extra"))
    b.append(Verdict(None, "timeout", "llm", "extra"))
    result = agreement(a, b)
    assert result["cohen_kappa"] == pytest.approx(0.4)
    assert result["n"] == 50 and result["n_unjudged"] == 1
    assert result["disagreements"] == [str(i) for i in range(20, 35)]
    constant = agreement([Verdict(True, "", "a", "x")], [Verdict(True, "", "b", "x")])
    assert constant["cohen_kappa"] is None and constant["observed_agreement"] == 1.0


def test_judge_any_probab_rule() -> None:
    judge = get_judge("alias")
    items = [
        MultiResponseItem("a", "q", "Paris", (), responses=("Lyon.", "It is Paris.", "Nice.")),
        MultiResponseItem("b", "q", "Paris", (), responses=("Lyon.", "Nice.")),
    ]
    verdicts = judge_any(judge, items)
    assert [v.correct for v in verdicts] == [True, False]
    assert [v.id for v in verdicts] == ["a", "b"]


class _ScriptedJudge:
    """Stand-in judge returning preset verdicts, to exercise judge_any's unjudged handling."""

    name = "scripted"

    def __init__(self, outcomes: list[bool | None]) -> None:
        self.outcomes = outcomes

    def judge(self, items: list[JudgeItem]) -> list[Verdict]:
        return [
            Verdict(o, "scripted", self.name, i.id)
            for o, i in zip(self.outcomes, items, strict=True)
        ]


def test_judge_any_unjudged_handling() -> None:
    all_none = judge_any(
        _ScriptedJudge([None, None]), [MultiResponseItem("a", "q", "x", (), responses=("1", "2"))]
    )  # type: ignore[arg-type]
    assert all_none[0].correct is None
    one_true = judge_any(
        _ScriptedJudge([None, True]), [MultiResponseItem("a", "q", "x", (), responses=("1", "2"))]
    )  # type: ignore[arg-type]
    assert one_true[0].correct is True
    mixed = [MultiResponseItem("a", "q", "x", (), responses=("1", "2"))]
    assert judge_any(_ScriptedJudge([None, False]), mixed)[0].correct is False  # type: ignore[arg-type]
    strict = judge_any(_ScriptedJudge([None, False]), mixed, mixed_unjudged_as_none=True)  # type: ignore[arg-type]
    assert strict[0].correct is None


def test_metric_value_round_trip() -> None:
    value = MetricValue(0.5, 0.4, 0.6, 10, None, 2)
    assert MetricValue.from_dict(value.to_dict()) == value
    assert set(value.to_dict()) >= {"value", "ci_low", "ci_high", "n", "undefined_reason"}
    assert MetricValue.from_dict({"value": math.nan, "n": 0}).value is None
