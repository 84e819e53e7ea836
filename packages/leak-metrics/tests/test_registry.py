"""Judge registry, plugin registration and the optional-dependency error."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from leak_metrics import JudgeItem, MissingExtraError, Verdict, available_judges, get_judge
from leak_metrics._optional import require
from leak_metrics.judges import ENTRY_POINT_GROUP, Judge, register_judge


class AlwaysCorrect(Judge):
    name = "always"

    def __init__(self, label: str = "x") -> None:
        self.label = label

    def judge(self, items: Sequence[JudgeItem]) -> list[Verdict]:
        return [Verdict(True, self.label, self.name, item.id) for item in items]


def test_builtins_listed_and_registration_works() -> None:
    assert {"alias", "llm"} <= set(available_judges())
    register_judge("always", AlwaysCorrect)
    assert "always" in available_judges()
    judge = get_judge("always", label="plugin")
    [verdict] = judge.judge([JudgeItem("1", "q", "a", (), (), "r")])
    assert (verdict.correct, verdict.reason) == (True, "plugin")
    assert ENTRY_POINT_GROUP == "leakres.judges"


def test_missing_extra_names_the_install_command() -> None:
    with pytest.raises(MissingExtraError, match=r"pip install leak-metrics\[local\]"):
        require("leak_metrics_no_such_module", "local", "BBH generation")
