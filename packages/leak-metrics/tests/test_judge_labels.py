"""Judges against careful reading labels of real default-model responses (issue 25).

The shipped set (``leak_metrics/data/judge_labels.jsonl``; rules in the README, "Labelling
rules") holds responses of SmolLM2-135M-Instruct from two real leakres runs: base answers,
GA-unlearned answers and sampled Probab attack responses, over all seven question types. The
alias judge must agree with the labels on at least 97% of them and 95% of every type, and call
at most 2% correct that the labels call incorrect.
"""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from leak_metrics import committed_answer, get_judge, labelled_agreement
from leak_metrics.cli import main
from leak_metrics.errors import InputError
from leak_metrics.judges import COMMITTED_ANSWER_RULE, YES_NO_RULE, agreement_table, load_labels
from leak_metrics.judges.label_sets import data_dir, load_dev
from leak_metrics.judges.labelled import TYPE_ORDER, shipped_labels_path


def _llm_test_module() -> Any:
    """The scripted OpenAI-compatible server of test_llm_judge.py (loaded by path, so this works
    under any pytest import mode)."""
    path = Path(__file__).with_name("test_llm_judge.py")
    spec = importlib.util.spec_from_file_location("leak_metrics_test_llm_judge", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_LLM = _llm_test_module()
API_KEY, ScriptedServer = _LLM.API_KEY, _LLM.ScriptedServer

GOALS = {"overall": 0.97, "per_type": 0.95, "false_correct": 0.02}


@pytest.fixture(scope="module")
def labelled() -> list[Any]:
    return load_dev(data_dir())  # the development set: every shipped development file


def test_shipped_set_covers_every_type_and_stage(labelled: list[Any]) -> None:
    assert len(labelled) >= 400
    types = Counter(r.type for r in labelled)
    assert set(types) == set(TYPE_ORDER), types
    stages = {r.source["stage"].split("-")[-1] for r in labelled}
    assert {"base", "eval", "probab"} <= stages  # base, GA-unlearned and attack responses
    assert all(r.reason for r in labelled)  # every label carries its one-line reason
    assert len({r.item.id for r in labelled}) == len(labelled)
    assert all(r.source["model"] == "HuggingFaceTB/SmolLM2-135M-Instruct" for r in labelled)


def test_alias_judge_meets_the_agreement_goals(labelled: list[Any]) -> None:
    table = agreement_table(get_judge("alias"), labelled)
    print("\n" + table.markdown())  # the README's table, from this run
    overall = table.overall
    assert overall.agreement >= GOALS["overall"], table.markdown()
    assert overall.false_correct_rate <= GOALS["false_correct"], table.markdown()
    for row in table.rows:
        assert row.agreement >= GOALS["per_type"], f"{row.group}\n{table.markdown()}"
    assert overall.unjudged == 0


def test_labelled_agreement_is_the_tables_number(labelled: list[Any]) -> None:
    known = labelled_agreement("alias")
    assert known is not None and known["n"] == len(labelled)
    table = agreement_table(get_judge("alias"), labelled)
    assert known["overall"]["agreement"] == pytest.approx(table.overall.agreement)
    assert set(known["by_type"]) == set(TYPE_ORDER)
    assert labelled_agreement("llm") is None  # not known offline: measure it with check-judge


def test_check_judge_prints_the_table_for_the_shipped_labels() -> None:
    result = CliRunner().invoke(main, ["check-judge", "--judge", "alias"])
    assert result.exit_code == 0, result.output
    assert "| type | n | agreement | false-correct | false-incorrect |" in result.output
    for group in (*TYPE_ORDER, "all"):
        assert f"| {group} |" in result.output


def test_check_judge_reads_a_users_file_and_names_bad_records(tmp_path: Path) -> None:
    good = {
        "id": "u1",
        "type": "SH",
        "question": "What is the capital of France?",
        "answer": "Paris",
        "aliases": [],
        "options": [],
        "response": "The capital of France is Lyon. Paris is nearby.",
        "label": "incorrect",
        "reason": "commits to Lyon",
    }
    file = tmp_path / "mine.jsonl"
    file.write_text(json.dumps(good) + "\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["check-judge", "--labels", str(file), "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["overall"]["n"] == 1 and payload["overall"]["agreement"] == 1.0

    file.write_text(json.dumps({**good, "label": "maybe"}) + "\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["check-judge", "--labels", str(file)])
    assert result.exit_code == 2
    assert f"{file}:1: field 'label'" in result.output
    with pytest.raises(InputError, match="field 'response' missing"):
        bad = {k: v for k, v in good.items() if k != "response"}
        file.write_text(json.dumps(bad) + "\n", encoding="utf-8")
        load_labels(file)


def test_check_judge_runs_an_llm_judge_against_a_local_server(labelled: list[Any]) -> None:
    """The scripted server stands in for an OpenAI-compatible endpoint; its grader is the old
    mention rule (gold text anywhere in the response), so the table shows what that costs."""
    server = ScriptedServer()
    server.thread.start()
    try:
        result = CliRunner(env={"JUDGE_KEY": API_KEY}).invoke(
            main,
            [
                "check-judge",
                "--judge",
                "llm",
                "--base-url",
                server.base_url,
                "--model",
                "judge-model",
                "--api-key-env",
                "JUDGE_KEY",
                "--json",
            ],
        )
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()
    assert result.exit_code == 0, result.output
    assert API_KEY not in result.output
    payload = json.loads(result.output)
    assert payload["overall"]["n"] == len(labelled)
    mention_rule = payload["overall"]["agreement"]
    alias = agreement_table(get_judge("alias"), labelled).overall.agreement
    assert mention_rule < alias  # the mention rule is what the committed-answer rules fix
    # every request carried the same rules as the alias judge, and the committed answer
    system = server.requests[0]["messages"][0]["content"]
    assert COMMITTED_ANSWER_RULE in system and YES_NO_RULE in system
    first = labelled[0].item
    user = next(
        b["messages"][1]["content"]
        for b in server.requests
        if f"RESPONSE: {first.response}" in b["messages"][1]["content"]
    )
    assert "COMMITTED ANSWER (the response's first answer sentence): " in user
    assert committed_answer(first.response) in user


def test_shipped_labels_path_is_package_data() -> None:
    path = shipped_labels_path()
    assert path.name == "judge_labels.jsonl" and path.is_file()
