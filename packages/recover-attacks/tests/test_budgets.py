"""Budget axes and ladders (issue 38 item 1): one run for a prefix axis, one per rung otherwise."""

from __future__ import annotations

import pytest
from recover_attacks import (
    AttackResult,
    ConfigError,
    available_attacks,
    get_attack_class,
    ladder_runs,
    parse_budgets,
    responses_at,
)


def test_every_builtin_declares_a_valid_default_ladder() -> None:
    for name in available_attacks():
        cls = get_attack_class(name)
        assert cls.budget is not None, name
        runs = ladder_runs(cls)  # every default rung passes the config's own validation
        rungs = [r for run in runs for r in run.rungs]
        assert sorted(map(str, rungs)) == sorted(map(str, cls.budget.default_ladder))
        for run in runs:
            assert getattr(run.config, cls.budget.field) in run.rungs


def test_probab_ladder_is_one_run_at_the_largest_n() -> None:
    runs = ladder_runs(get_attack_class("probab"), [5, 1, 20, 2], temperature=0.7)
    assert len(runs) == 1
    assert runs[0].config.num_samples == 20 and runs[0].config.temperature == 0.7
    assert runs[0].rungs == (1, 2, 5, 20)


def test_non_prefix_ladder_runs_each_rung() -> None:
    runs = ladder_runs(get_attack_class("quantization"), ["int8", "nf4"])
    assert [r.config.method for r in runs] == ["int8", "nf4"]


def test_ladder_errors_name_the_problem() -> None:
    probab = get_attack_class("probab")
    with pytest.raises(ConfigError, match="num_samples >= 1"):
        ladder_runs(probab, [0, 5])
    with pytest.raises(ConfigError, match="repeats a rung"):
        ladder_runs(probab, [5, 5])
    with pytest.raises(ConfigError, match="set by the budget ladder"):
        ladder_runs(probab, [5], num_samples=3)
    with pytest.raises(ConfigError):
        ladder_runs(get_attack_class("quantization"), ["int3"])


def test_responses_at_takes_the_first_n_on_a_prefix_axis() -> None:
    axis = get_attack_class("probab").budget
    result = AttackResult("q1", "probab", ["a", "b", "c", "d"], {})
    assert responses_at(result, axis, 2) == ["a", "b"]
    with pytest.raises(ConfigError, match="needs 5 responses"):
        responses_at(result, axis, 5)
    quant = get_attack_class("quantization").budget
    assert responses_at(AttackResult("q1", "quantization", ["x"], {}), quant, "fp4") == ["x"]


def test_parse_budgets() -> None:
    axes = {n: get_attack_class(n).budget for n in ("probab", "quantization")}
    assert parse_budgets("default", ["probab", "quantization"], axes) == {
        "probab": (1, 2, 5, 10, 20),
        "quantization": ("int8", "fp4", "nf4"),
    }
    assert parse_budgets("probab=1,5; quantization=fp4", ["probab", "quantization"], axes) == {
        "probab": (1, 5),
        "quantization": ("fp4",),
    }
    with pytest.raises(ConfigError, match="not among the run's attacks"):
        parse_budgets("relearn=1,2", ["probab"], axes)
    with pytest.raises(ConfigError, match="write ATTACK=R1,R2"):
        parse_budgets("probab", ["probab"], axes)
