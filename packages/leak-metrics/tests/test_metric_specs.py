"""The metric registry (issue 37 item 4): every metric describes itself and computes."""

from __future__ import annotations

import pytest
from leak_metrics import UnknownNameError
from leak_metrics.datatypes import MetricValue
from leak_metrics.metric_specs import (
    METRICS,
    MetricSpec,
    available_metrics,
    format_metric,
    get_metric,
    register_metric,
)


def test_builtin_specs_compute_what_they_say() -> None:
    fq = get_metric("forget_quality")
    value = fq.compute([True, True, True, False], [False, True, False, False])
    assert value.value == pytest.approx(1 - (1 / 3) / (3 / 3))  # Acc_u 1/3 of the 3 known
    assert fq.higher_is_better and fq.unit == "percent" and fq.level == "type"
    rr = get_metric("recovery_rate")
    assert rr.compute([True, False, False, False]).value == 0.25 and not rr.higher_is_better
    robust = get_metric("robustness").compute(
        {("probab", "SH"): [True, False], ("probab", "MH"): [False, False]}
    )
    assert robust.value == 0.5  # 1 - max(0.5, 0.0)
    for spec in available_metrics():
        assert spec.definition and spec.reference and spec.needs, spec.name


def test_levels_filter_and_names() -> None:
    assert {s.name for s in available_metrics("attack")} == {"recovery_rate", "false_recovery_rate"}
    with pytest.raises(UnknownNameError, match="did you mean 'forget_quality'"):
        get_metric("forget_qualty")


def test_format() -> None:
    assert format_metric(MetricValue(0.854, 0.75, 0.94, 48), "percent") == "85.4 [75.0, 94.0]"
    assert format_metric(MetricValue(0.854, 0.75, 0.94, 48), "percent", ci=False) == "85.4"
    assert format_metric(MetricValue(1.02, 0.9, 1.1, 5), "ratio") == "1.020 [0.900, 1.100]"
    assert (
        format_metric(MetricValue.undefined("base accuracy is 0"), "percent")
        == "n/a: base accuracy is 0"
    )


def test_register_metric_adds_one_everywhere_listed() -> None:
    spec = MetricSpec(
        "answer_length",
        "len",
        "mean characters per answer",
        "leakres",
        False,
        "count",
        "method",
        ("answers",),
        lambda answers: MetricValue(
            sum(map(len, answers)) / len(answers), None, None, len(answers)
        ),
    )
    try:
        register_metric(spec)
        assert get_metric("answer_length") is spec
        assert spec in available_metrics("method")
        assert spec.format(spec.compute(["ab", "abcd"])) == "3"
    finally:
        METRICS._builtin.pop("answer_length", None)
    with pytest.raises(TypeError, match="MetricSpec"):
        register_metric("answer_length")  # type: ignore[arg-type]


def test_labels_keys_and_ci_digits() -> None:
    specs = available_metrics()
    shown = [s for s in specs if s.results_key]
    assert len({s.display for s in shown}) == len(shown)  # a reader tells every column apart
    assert len({(s.level, s.results_key) for s in shown}) == len(shown)
    assert get_metric("forget_quality").results_key == "fq"
    assert get_metric("recovery_rate").results_key.format(hop="MH") == "rr_MH"
    assert get_metric("false_recovery_rate").results_key is None  # not computed by a run
    spec = MetricSpec("x", "x", "d", "r", True, "percent", "attack", ("recovered",), len)
    assert spec.display == "x" and spec.results_key == "x_{hop}"
    assert spec.direction == "higher is better"
    value = MetricValue(0.854, 0.75, 0.94, 48)
    assert spec.format(value, ci_digits=0) == "85.4 [75, 94]"
