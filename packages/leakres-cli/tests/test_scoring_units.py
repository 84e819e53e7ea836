"""The CLI's scoring helpers without a model: fact selection, run sizes, judge items, run records.

Question records here are small fixtures in kg-qgen's record format (ARCHITECTURE.md section 1).
"""

from __future__ import annotations

import pytest
from leak_metrics import AliasJudge, Verdict
from leakres_cli.config.run_config import RunConfig, preset_config
from leakres_cli.errors import LeakresError
from leakres_cli.stages.pipeline import (
    Benchmark,
    check_sizes,
    question_options,
    run_sizes,
    select_facts,
    training_summary,
)


def sh(qid: str, subject: str, relation: str, obj: str, **extra) -> dict:
    return {
        "id": qid,
        "type": "SH",
        "question": f"What is the {relation} of {subject}?",
        "answer": obj,
        "answer_aliases": [],
        "target": {"subject": subject, "relation": relation, "object": obj},
        **extra,
    }


def test_retain_facts_come_first_from_the_forget_relations_with_other_subjects() -> None:
    forget_facts = [
        sh("f1", "Alice", "citizenship", "France"),
        sh("f2", "Bob", "citizenship", "Peru"),
    ]
    same_relation = [sh(f"r{i}", f"Person{i}", "citizenship", f"Country{i}") for i in range(3)]
    other_relation = [sh(f"o{i}", f"Town{i}", "continent", "Europe") for i in range(3)]
    same_subject = [sh("s1", "Alice", "occupation", "chemist")]
    known = [*same_subject, *other_relation, *forget_facts, *same_relation]
    # Each forget fact is reached by multi-hop questions, so it is chosen to be forgotten.
    multi = [{"type": "HS", "target": f["target"]} for f in forget_facts for _ in range(2)]

    forget, retain = select_facts(known, multi, n_forget=2, n_retain=5, seed=0)

    assert {q["id"] for q in forget} == {"f1", "f2"}
    assert {q["id"] for q in retain[:3]} == {"r0", "r1", "r2"}  # same relation, other subject
    assert all(q["target"]["relation"] == "continent" for q in retain[3:5])  # then the others
    assert "s1" not in {q["id"] for q in retain}  # a forget subject's other fact comes last
    assert {q["id"] for q in forget}.isdisjoint(q["id"] for q in retain)
    # Deterministic for a seed.
    assert select_facts(known, multi, 2, 5, 0) == (forget, retain)


def test_one_object_takes_at_most_a_third_of_the_forget_facts() -> None:
    # Twelve US citizens are reached by the most multi-hop questions; unchecked they would all be
    # forgotten, and unlearning them unlearns "United States" (the `types` preset's collapse).
    us = [sh(f"u{i}", f"Person{i}", "citizenship", "United States") for i in range(12)]
    others = [sh(f"c{i}", f"City{i}", "country", f"Country{i}") for i in range(8)]
    multi = [{"type": "HS", "target": f["target"]} for f in us for _ in range(3)]
    multi += [{"type": "HS", "target": f["target"]} for f in others]

    forget, retain = select_facts([*others, *us], multi, n_forget=9, n_retain=4, seed=0)

    assert sum(q["target"]["object"] == "United States" for q in forget) == 3  # ceil(9 / 3)
    assert len(forget) == 9 and {q["id"] for q in forget}.isdisjoint(q["id"] for q in retain)
    # the cap gives way when too few other facts are known
    forget, _ = select_facts([*others[:2], *us], multi, n_forget=9, n_retain=0, seed=0)
    assert sum(q["target"]["object"] == "United States" for q in forget) == 7


def test_run_sizes_keep_the_request_or_shrink_in_proportion() -> None:
    cfg = RunConfig(n_forget=12, n_retain=24)
    assert run_sizes(40, cfg) == (12, 24)
    assert run_sizes(9, cfg) == (3, 6)
    assert run_sizes(1, cfg) == (1, 0)
    with pytest.raises(LeakresError, match="answered no single-hop question"):
        run_sizes(0, cfg)


def test_short_run_stops_with_one_line_unless_allow_fewer() -> None:
    sizes = {
        "requested": {"n_forget": 12, "n_retain": 24},
        "actual": {"n_forget": 3, "n_retain": 6},
        "short": True,
        "n_single_hop_known": 9,
        "n_single_hop_asked": 130,
        "n_single_hop_pool": 96,
        "widened_to_every_fact": True,
    }
    with pytest.raises(LeakresError) as err:
        check_sizes(sizes, RunConfig(n_forget=12, n_retain=24))
    message = str(err.value)
    assert "\n" not in message
    assert "knows 9 of 130 single-hop facts" in message and "--allow-fewer" in message
    check_sizes(sizes, RunConfig(n_forget=12, n_retain=24, allow_fewer=True))  # no error


def test_allow_fewer_is_not_part_of_the_cell_fingerprint() -> None:
    assert "allow_fewer" not in RunConfig(allow_fewer=True).fingerprint_dict()
    assert RunConfig(allow_fewer=True).fingerprint_dict() == RunConfig().fingerprint_dict()


def test_full_preset_scores_a_small_answer_only_bbh_subset() -> None:
    cfg = preset_config("full")
    assert 1 <= len(cfg.bbh_tasks) <= 5 and 1 <= cfg.bbh_limit <= 10 and cfg.bbh_cot is False


def test_training_summary_takes_the_record_and_says_what_it_computed() -> None:
    record = {
        "config": {"epochs": 5.0, "max_steps": None, "batch_size": 4},
        "steps": 5,
        "planned_steps": 5,
        "epochs_completed": 5.0,
        "forget_examples_seen": 3,
        "cap_hit": False,
        "stop_reason": "completed",
        "n_forget": 3,
    }
    out = training_summary(record, 3)
    assert out["computed_by_cli"] == [] and out["every_forget_example_seen"] is True
    assert (out["epochs"], out["steps"], out["cap_hit"]) == (5.0, 5, False)

    older = {
        "config": {"epochs": 5.0, "max_steps": 2, "batch_size": 4},
        "steps": 2,
        "planned_steps": 10,
    }
    out = training_summary(older, 12)
    assert out["cap_hit"] is True and out["epochs_completed"] == pytest.approx(1.0)
    assert out["forget_examples_seen"] == 8 and out["every_forget_example_seen"] is False
    assert out["computed_by_cli"][:2] == ["cap_hit", "epochs_completed"]
    assert out["computed_by_cli"][2].startswith("forget_examples_seen (upper bound")


def test_options_field_is_checked_and_optional() -> None:
    assert question_options(sh("a", "X", "r", "o")) == ()
    assert question_options(sh("a", "X", "r", "o", options=["o", "p"])) == ("o", "p")
    with pytest.raises(LeakresError, match="question 'a': field 'options' must be a list"):
        question_options(sh("a", "X", "r", "o", options="o,p"))


class RecordingJudge(AliasJudge):
    """leak-metrics' alias judge that records every item it is given, and can leave some unjudged."""

    def __init__(self, unjudged_responses: frozenset[str] = frozenset()) -> None:
        super().__init__()
        self.items: list = []
        self.unjudged_responses = unjudged_responses

    def judge(self, items):
        self.items += list(items)
        verdicts = super().judge(items)
        return [
            Verdict(None, "scripted outage", self.name, v.id)
            if item.response in self.unjudged_responses
            else v
            for item, v in zip(items, verdicts, strict=True)
        ]


def test_judge_passes_options_and_keeps_unjudged_apart_from_wrong(tmp_path) -> None:
    bench = Benchmark(RunConfig(), tmp_path, progress=False)
    judge = RecordingJudge(unjudged_responses=frozenset({"timeout"}))
    bench._judge = judge
    questions = [
        sh("mc", "Alice", "citizenship", "France", options=["France", "Peru"]),
        sh("plain", "Bob", "citizenship", "Peru"),
        sh("mixed", "Carol", "citizenship", "Chile"),
        sh("none", "Dan", "citizenship", "Japan"),
    ]
    responses = [["It is France."], ["Spain", "Peru"], ["Spain", "timeout"], ["timeout"]]

    verdicts = bench.judge(questions, responses)

    assert verdicts == [True, True, None, None]  # "mixed": wrong + unjudged is not "wrong"
    assert [tuple(i.options) for i in judge.items[:1]] == [("France", "Peru")]
    assert all(tuple(i.options) == () for i in judge.items[1:])
    assert [i.response for i in judge.items] == [r for resp in responses for r in resp]


def test_missing_bbh_file_stops_before_any_model_is_loaded(tmp_path) -> None:
    (tmp_path / "bbh" / "bbh").mkdir(parents=True)
    cfg = RunConfig(bbh_tasks=("navigate",), data_dir=str(tmp_path))
    with pytest.raises(LeakresError, match=r"BBH file .*bbh/bbh/navigate.json not found"):
        Benchmark(cfg, tmp_path / "out", progress=False).bbh_data()
    with pytest.raises(LeakresError, match="unknown BBH task"):
        Benchmark(RunConfig(bbh_tasks=("navigat",)), tmp_path / "out", progress=False).bbh_data()


def test_an_attack_budget_other_than_the_evaluation_budget_is_refused(tmp_path) -> None:
    cfg = RunConfig(attack_overrides={"probab": {"max_new_tokens": 32}})
    with pytest.raises(LeakresError, match=r"--set probab.max_new_tokens=32 differs"):
        Benchmark(cfg, tmp_path, progress=False).run()


def test_new_run_options_are_also_environment_variables(tmp_path, monkeypatch) -> None:
    from click.testing import CliRunner
    from leakres_cli.main import cli
    from leakres_cli.models import catalog as models

    seen: dict = {}

    def capture(self) -> dict:
        seen["cfg"] = self.cfg
        raise LeakresError("stopped by the test")

    monkeypatch.setattr(models, "resolve_model", lambda name: name)
    monkeypatch.setattr(Benchmark, "run", capture)
    env = {"LEAKRES_RUN_ALLOW_FEWER": "1", "LEAKRES_RUN_MAX_NEW_TOKENS": "20",
           "LEAKRES_RUN_DATA_DIR": str(tmp_path)}  # fmt: skip
    result = CliRunner().invoke(cli, ["run", "--quiet", "--out", str(tmp_path / "o")], env=env)
    assert result.exit_code == 2 and "stopped by the test" in result.output
    cfg = seen["cfg"]
    assert (cfg.allow_fewer, cfg.max_new_tokens, cfg.data_dir) == (True, 20, str(tmp_path))
