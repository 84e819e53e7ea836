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
    [verdict] = judge.judge([JudgeItem("1", "q", "a", (), response="r")])
    assert (verdict.correct, verdict.reason) == (True, "plugin")
    assert ENTRY_POINT_GROUP == "leakres.judges"


def test_missing_extra_names_the_install_command() -> None:
    with pytest.raises(MissingExtraError, match=r"pip install leak-metrics\[local\]"):
        require("leak_metrics_no_such_module", "local", "BBH generation")


def test_judges_say_whether_they_need_an_endpoint_and_where_their_key_comes_from(
    monkeypatch,
) -> None:
    """Issue 23: a caller asks the judge class, without building it, whether it needs an endpoint
    and which key it would use; the key order is the one the OpenAI client is given."""
    from leak_metrics import AliasJudge, LLMJudge, judge_class, judge_needs_endpoint
    from leak_metrics.judges.llm import API_KEY_ENV_VARS

    assert judge_class("alias") is AliasJudge and judge_class("LLM") is LLMJudge
    assert judge_needs_endpoint("llm") and not judge_needs_endpoint("alias")
    assert LLMJudge.api_key_env_vars == API_KEY_ENV_VARS
    for var in API_KEY_ENV_VARS:
        monkeypatch.delenv(var, raising=False)
    assert LLMJudge.api_key_from_env() is None and AliasJudge.api_key_from_env() is None
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    monkeypatch.setenv("LEAKRES_API_KEY", "sk-leakres")
    assert LLMJudge.api_key_from_env() == ("LEAKRES_API_KEY", "sk-leakres")
    backend = LLMJudge.from_openai("m", base_url="http://127.0.0.1:9/v1").backend
    assert backend._client.api_key == "sk-leakres"  # the key the client really sends
