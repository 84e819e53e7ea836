"""`leakres eval` (bring your own model) on the real SmolLM2-135M-Instruct and the built-in facts.

1. Equality: the GA model `leakres run --save-models` trains, measured by `leakres eval` with the
   run's forget/retain facts and questions, gives the same FQ, RR, robustness and utility, every
   digit and every CI bound.
2. A peft LoRA adapter (unlearn-zoo, ``use_lora=True, merge_lora=False``) as the unlearned model:
   its answers in the eval are the adapter model's own (decoded here independently), and facts
   missing from the source or unknown to the base model are listed and stop the eval unless
   --allow-fewer.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from leakres_cli import evaluate
from leakres_cli.main import cli
from leakres_cli.outputs.schema import validate_results
from test_run_api import _without_wall_clock

COMMON = ["--quiet", "--types", "SH,HS", "--sh-pool", "30", "--max-new-tokens", "8",
          "--bootstrap", "200", "--seed", "0", "--attacks", "probab"]  # fmt: skip
RUN = ["run", *COMMON, "--per-type", "6", "--n-forget", "3", "--n-retain", "3", "--methods", "ga",
       "--set", "ga.lr=1e-4", "--set", "ga.epochs=5", "--save-models"]  # fmt: skip
#: the metric blocks of a method that must agree (the training record differs by construction)
COMPARED = ("per_type", "fq_all_types", "fq_multi_hop", "retain", "utility", "s_suc", "robustness")


def _invoke(args: list[str]):
    return CliRunner().invoke(cli, args, catch_exceptions=False)


@pytest.fixture(scope="module")
def saved_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("byom") / "run"
    result = _invoke([*RUN, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out, json.loads((out / "results.json").read_text())


def _eval_args(run: Path, unlearned: Path, out: Path, *extra: str) -> list[str]:
    models = run / "models"
    return ["eval", *COMMON, "--base", "smollm2-135m-instruct", "--unlearned", str(unlearned),
            "--forget", str(models / "forget.jsonl"), "--retain", str(models / "retain.jsonl"),
            "--questions", str(models), "--out", str(out), *extra]  # fmt: skip


def test_run_model_through_eval_gives_the_same_numbers(saved_run, tmp_path: Path) -> None:
    run, expected = saved_run
    models = run / "models"
    assert (models / "ga" / "model.safetensors").is_file()
    assert json.loads((models / "ga" / "unlearn_record.json").read_text())["method"] == "ga"
    forget = [json.loads(line) for line in (models / "forget.jsonl").read_text().splitlines()]
    assert forget == expected["forget_facts"]
    # --save-models is run control: the cells of a run without it are the same cells
    assert "save_models" not in expected["config"]

    out = tmp_path / "eval"
    result = _invoke(_eval_args(run, models / "ga", out, "--label", "ga"))
    assert result.exit_code == 0, result.output
    got = json.loads((out / "results.json").read_text())
    # what was scored: the weights' hashes (issue 39), the base's as the run recorded it
    assert got["weights"]["base"] == expected["weights"]["base"]
    assert list(got["weights"]["unlearned"]["files"]) == ["model.safetensors"]
    assert got["forget_facts"] == expected["forget_facts"]
    assert got["retain_facts"] == expected["retain_facts"]
    assert got["scored_questions"] == expected["scored_questions"]
    mine, theirs = got["methods"]["ga"], expected["methods"]["ga"]
    assert theirs["s_suc"]["SH"] > 0, "the run forgot nothing: the attack comparison would be empty"
    for key in COMPARED:
        assert mine[key] == theirs[key], key
    for attack in ("probab",):
        for key in ("rr_SH", "rr_MH", "rr_all", "rr_per_type", "n_unjudged"):
            assert mine["attacks"][attack][key] == theirs["attacks"][attack][key], (attack, key)
    run_eval = json.loads((run / "cells" / "ga" / "eval.json").read_text())["payload"]
    byom_eval = json.loads((out / "cells" / "ga" / "eval.json").read_text())["payload"]
    assert byom_eval["answers"] == run_eval["answers"]
    # issue 37 item 2: `run` and `eval` score through the same stage code, so the same model gets
    # the same per-item verdicts, question by question (evaluation and the attack's recoveries)
    assert run_eval["correct"] and byom_eval["correct"] == run_eval["correct"]
    run_attack = json.loads((run / "cells" / "ga" / "attack-probab.json").read_text())["payload"]
    byom_attack = json.loads((out / "cells" / "ga" / "attack-probab.json").read_text())["payload"]
    assert byom_attack["recovered"] == run_attack["recovered"]
    assert got["eval"]["unlearned"]["kind"] == "model"
    assert got["eval"]["facts_excluded"] == []
    assert (out / "summary.md").read_text().count("## Bring your own model") == 1
    assert (out / "report.html").is_file()
    validate_results(got)  # the shipped JSON Schema (issue 39)

    # leakres_cli.evaluate is the same path: on the same directory it reuses every cell and writes
    # the same results.json, wall-clock fields aside
    done = evaluate(
        "smollm2-135m-instruct", str(models / "ga"), models / "forget.jsonl", out,
        retain=models / "retain.jsonl", questions=models, label="ga", types=("SH", "HS"),
        sh_pool=30, max_new_tokens=8, bootstrap=200, seed=0, attacks=("probab",),
    )  # fmt: skip
    assert _without_wall_clock(done.results) == _without_wall_clock(got)
    assert done.results_json == out / "results.json" and done.report_html is not None


def test_peft_adapter_and_facts_that_cannot_be_measured(saved_run, tmp_path: Path) -> None:
    import torch
    from kg_qgen import render_prompt
    from leakres_cli.models.catalog import load_model
    from leakres_cli.stages.answering import answer_end_kwargs
    from leakres_cli.stages.unlearning import unlearn_examples
    from recover_attacks import generate
    from recover_attacks import load_model as load_checkpoint
    from unlearn_zoo import get_unlearner

    run, expected = saved_run
    models = run / "models"
    questions = [json.loads(line) for line in (models / "questions.jsonl").read_text().splitlines()]
    forget_keys = [tuple(f.values()) for f in expected["forget_facts"]]
    sh = {tuple(q["target"].values()): q for q in questions if q["type"] == "SH"}
    base_cell = json.loads((run / "cells" / "base-single-hop.json").read_text())["payload"]

    model, tokenizer, base_path = load_model("smollm2-135m-instruct")
    torch.manual_seed(0)
    unlearner = get_unlearner("ga", use_lora=True, merge_lora=False, lr=2e-3, epochs=3, seed=0)
    adapter = tmp_path / "adapter"
    unlearner.unlearn(
        model, tokenizer, unlearn_examples([sh[k] for k in forget_keys]), output_dir=adapter,
        progress=False,
    )  # fmt: skip
    assert (adapter / "adapter_config.json").is_file() and not (adapter / "config.json").exists()

    # one fact the source lacks, one the base model answers wrongly: listed, and the eval stops
    unknown = next(
        q for q in questions if q["type"] == "SH" and base_cell["correct"].get(q["id"]) is False
    )
    forget = tmp_path / "forget.jsonl"
    extra = [
        {"subject": "Atlantis", "relation": "capital", "object": "Poseidonia"},
        unknown["target"],
    ]
    forget.write_text(
        (models / "forget.jsonl").read_text() + "".join(json.dumps(f) + "\n" for f in extra)
    )
    args = _eval_args(run, adapter, tmp_path / "eval")
    args[args.index("--forget") + 1] = str(forget)
    # the fact the set cannot ask stops the eval before any model loads (the preflight) ...
    stopped = CliRunner().invoke(cli, args)
    assert stopped.exit_code == 2
    assert "1 of the given facts cannot be asked by the question source" in stopped.output
    assert (
        "relation 'capital' is asked by no single-hop question of the question set"
        in (stopped.output)
        or "no single-hop question of the question set asks this fact" in stopped.output
    )
    assert not (tmp_path / "eval" / "cells" / "base.json").exists()
    # ... the one the base model does not know, once the base model has answered
    args[args.index("--forget") + 1] = str(tmp_path / "forget-known-to-set.jsonl")
    (tmp_path / "forget-known-to-set.jsonl").write_text(
        (models / "forget.jsonl").read_text() + json.dumps(unknown["target"]) + "\n"
    )
    stopped = CliRunner().invoke(cli, args)
    assert stopped.exit_code == 2
    assert "1 of the given facts cannot be measured" in stopped.output
    assert "the base model does not know it (answered incorrectly" in stopped.output

    args[args.index("--forget") + 1] = str(forget)
    result = _invoke([*args, "--allow-fewer"])
    assert result.exit_code == 0, result.output
    got = json.loads((tmp_path / "eval" / "results.json").read_text())
    assert got["eval"]["unlearned"]["kind"] == "adapter"
    assert [e["fact"] for e in got["eval"]["facts_excluded"]] == extra
    assert got["weights"]["unlearned"]["files"].keys() == {
        "adapter_config.json", "adapter_model.safetensors"
    }  # fmt: skip
    assert got["forget_facts"] == expected["forget_facts"]
    assert "left out (forget)" in (tmp_path / "eval" / "summary.md").read_text()

    # the eval's answers are the adapter model's: decoded here with the same protocol
    cell = json.loads((tmp_path / "eval" / "cells" / "unlearned" / "eval.json").read_text())
    answers = cell["payload"]["answers"]
    peft_model = load_checkpoint(adapter, base_model=base_path)
    assert type(peft_model).__name__ == "PeftModelForCausalLM"
    ids = list(answers)
    by_id = {q["id"]: q for q in questions}
    form = got["config"]["prompt_form"]  # the run's prompts: kg-qgen renders them
    direct = generate(
        peft_model, tokenizer, [render_prompt(by_id[i], form) for i in ids], max_new_tokens=8,
        batch_size=64, seed=0, stop=(), chat_template=True, progress=False,
        **answer_end_kwargs(),  # the run's protocol: stop at the end of the committed answer
    )  # fmt: skip
    assert [d[0] for d in direct] == [answers[i] for i in ids]
    base_answers = json.loads((run / "cells" / "base.json").read_text())["payload"]["answers"]
    assert any(answers[i] != base_answers[i] for i in ids), "the adapter changed nothing"


def test_saved_models_pushed_to_the_hub_stand_in(saved_run, monkeypatch) -> None:
    """`leakres run --save-models --push-to-hub REPO` on the saved run's directory (every cell
    reused): OUT/models goes to the Hub, here a recording stand-in (the Hub is not reachable from
    the test machines; test_hub_push.py has the stand-in and the refusals)."""
    import huggingface_hub
    from test_hub_push import SECRET, RecordingHfApi

    run, _ = saved_run
    RecordingHfApi.calls = []
    monkeypatch.setattr(huggingface_hub, "HfApi", RecordingHfApi)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_TOKEN", SECRET)
    result = _invoke([*RUN, "--out", str(run), "--push-to-hub", "org/leakres-ga"])
    assert result.exit_code == 0, result.output
    assert "Pushed" in result.output and SECRET not in result.output
    (upload,) = [kw for name, kw in RecordingHfApi.calls if name == "upload_folder"]
    assert Path(upload["folder_path"]) == run / "models" and upload["path_in_repo"] is None
    assert {"ga/model.safetensors", "forget.jsonl", "retain.jsonl", "questions.jsonl"} <= set(
        upload["files"]
    )


# ---------------------------------------------------------------- inputs, without a model


def test_facts_file_formats_and_errors(tmp_path: Path) -> None:
    from leakres_cli.errors import LeakresError
    from leakres_cli.models.external import read_facts

    good = tmp_path / "facts.jsonl"
    good.write_text(
        '{"subject": "sumo", "relation": "country of origin", "object": "Japan", "note": 1}\n'
        '\n{"id": "SH-000003"}\n"SH-000004"\n'
    )
    assert read_facts(good) == [
        {"subject": "sumo", "relation": "country of origin", "object": "Japan"},
        {"id": "SH-000003"},
        {"id": "SH-000004"},
    ]
    for text, message in [
        ('{"subject": "sumo", "relation": "country of origin"}\n', "line 1: field 'object'"),
        ('{"subject": "sumo"\n', "line 1: not JSON"),
        ("[1, 2]\n", "line 1: expected an object or an id string"),
        ("\n", "no facts"),
    ]:
        bad = tmp_path / "bad.jsonl"
        bad.write_text(text)
        with pytest.raises(LeakresError, match=message):
            read_facts(bad)
    with pytest.raises(LeakresError, match="cannot read facts file"):
        read_facts(tmp_path / "absent.jsonl")


def test_questions_reach_the_facts_from_the_source_or_a_set(tmp_path: Path) -> None:
    import kg_qgen
    from leakres_cli.config.run_config import RunConfig
    from leakres_cli.models.external import EvalInputs, build_external_questions

    facts = [
        {"subject": "sumo", "relation": "country of origin", "object": "Japan"},
        {"subject": "Atlantis", "relation": "capital", "object": "Poseidonia"},
    ]
    cfg = RunConfig(types=("SH", "HS", "MT"), sh_pool=10, seed=0)
    cell = build_external_questions(cfg, EvalInputs(unlearned="x", forget=facts))
    sumo = tuple(facts[0].values())
    reached = [q for q in cell["questions"] if q["type"] != "SH"]
    assert reached and all(tuple(q["target"].values()) == sumo for q in reached)
    assert {q["type"] for q in reached} <= {"HS", "MT"}
    graph = kg_qgen.load_source("builtin", None)
    every = kg_qgen.build(graph, types=("HS", "MT"), per_type=10**9, seed=0).questions
    assert len(reached) == sum(tuple(q["target"].values()) == sumo for q in every)
    pool = [q for q in cell["questions"] if q["type"] == "SH"]
    assert len(pool) == 10 and tuple(pool[0]["target"].values()) == sumo
    assert cell["requested"]["forget_ids"] == [pool[0]["id"]]
    assert cell["missing"] == [
        {
            "fact": facts[1],
            "role": "forget",
            "reason": "not in the knowledge source (it has no subject 'Atlantis')",
        }
    ]

    # a kg-qgen set and its SH ids
    set_dir = tmp_path / "set"
    kg_qgen.save(kg_qgen.build(graph, per_type=30, seed=0), set_dir)
    rows = [json.loads(line) for line in (set_dir / "questions.jsonl").read_text().splitlines()]
    multi_targets = [q["target"] for q in rows if q["type"] in ("HS", "MT")]
    sh_id, target = next(
        (q["id"], q["target"]) for q in rows if q["type"] == "SH" and q["target"] in multi_targets
    )
    inputs = EvalInputs(
        unlearned="x", forget=[{"id": sh_id}, {"id": "SH-999999"}], questions=str(set_dir)
    )
    cell = build_external_questions(cfg, inputs)
    assert cell["requested"]["forget_ids"] == [sh_id]
    assert [m["reason"] for m in cell["missing"]] == [
        "no SH question with this id in the question set"
    ]
    assert [q["id"] for q in cell["questions"] if q["type"] != "SH"] == [
        q["id"] for q in rows if q["type"] in ("HS", "MT") and q["target"] == target
    ]


def test_sh_ids_need_the_set_they_belong_to(tmp_path: Path) -> None:
    facts = tmp_path / "facts.jsonl"
    facts.write_text('"SH-000001"\n')
    result = CliRunner().invoke(
        cli, ["eval", "--base", "smollm2-135m-instruct", "--unlearned", "x", "--forget", str(facts),
              "--out", str(tmp_path / "out")],
    )  # fmt: skip
    assert result.exit_code == 2
    assert "facts given as SH ids need --questions" in result.output
    assert not (tmp_path / "out").exists()


def test_unlearned_model_behind_an_endpoint(saved_run, tmp_path: Path) -> None:
    """A black-box unlearned model: recover-attacks' OpenAI-compatible server on 127.0.0.1 serves
    the run's GA model; greedy answers through it equal in-process ones, so FQ is the run's; the
    attack that needs the weights (quantization) is skipped and the summary says so."""
    import sys

    from recover_attacks.engine import ServerProcess

    run, expected = saved_run
    serve = (
        f"{sys.executable} -m recover_attacks.serve --model {{model}} --port {{port}} --threads 1"
    )
    server = ServerProcess(
        serve, model=str(run / "models" / "ga"), log_path=tmp_path / "server.log"
    )
    server.start()
    try:
        args = _eval_args(run, Path(server.served_model), tmp_path / "eval", "--label", "ga")
        args[args.index("--attacks") + 1] = "probab,quantization"
        result = _invoke([*args, "--unlearned-endpoint", server.base_url])
    finally:
        server.stop()
    assert result.exit_code == 0, result.output
    got = json.loads((tmp_path / "eval" / "results.json").read_text())
    assert got["eval"]["unlearned"] == {
        "model": server.served_model, "endpoint": server.base_url, "kind": "endpoint"
    }  # fmt: skip
    assert list(got["eval"]["attacks_skipped"]) == ["quantization"]
    assert list(got["methods"]["ga"]["attacks"]) == ["probab"]
    for key in ("per_type", "fq_all_types", "fq_multi_hop", "retain", "s_suc"):
        assert got["methods"]["ga"][key] == expected["methods"]["ga"][key], key
    probab = got["methods"]["ga"]["attacks"]["probab"]
    assert probab["settings"]["engine"]["base_url"] == server.base_url  # sampled on the server
    summary = (tmp_path / "eval" / "summary.md").read_text()
    assert "- attack quantization skipped: needs the unlearned model's weights" in summary
    # labelled as what it is (issue 39): no "full fine-tuning", no training row of unknowns
    assert "black box behind an endpoint (trained elsewhere) |" in summary
    assert "full fine-tuning" not in summary and "None None" not in summary
    assert (
        "- ga: black box behind an endpoint (trained elsewhere), no unlearn-zoo record" in summary
    )
    # keyed on the served model: its id and a greedy probe through the endpoint
    served = got["weights"]["unlearned"]
    assert served["model"] == server.served_model and server.served_model in served["served"]
    assert served["probe"] and len(served["sha256"]) == 64
    validate_results(got)


def test_both_models_served_through_engine_openai(saved_run, tmp_path: Path) -> None:
    """`--engine openai --engine-cmd`: leakres starts recover-attacks' OpenAI-compatible server on
    127.0.0.1 for each side (the base model from its path, the unlearned checkpoint from its
    directory) and decodes the evaluation and Probab there; the numbers equal the in-process run's."""
    import sys

    run, expected = saved_run
    serve = (
        f"{sys.executable} -m recover_attacks.serve --model {{model}} --port {{port}} --threads 1"
    )
    out = tmp_path / "eval"
    args = _eval_args(run, run / "models" / "ga", out, "--label", "ga")
    result = _invoke([*args, "--engine", "openai", "--engine-cmd", serve])
    assert result.exit_code == 0, result.output
    got = json.loads((out / "results.json").read_text())
    served = got["engine"]["models"]
    assert served["base"]["served"] is True and served["ga"]["served"] is True
    for key in ("per_type", "fq_all_types", "fq_multi_hop", "retain", "s_suc", "robustness"):
        assert got["methods"]["ga"][key] == expected["methods"]["ga"][key], key
    probab = got["methods"]["ga"]["attacks"]["probab"]
    assert probab["rr_SH"] == expected["methods"]["ga"]["attacks"]["probab"]["rr_SH"]


def test_an_unknown_unlearned_model_fails_before_any_work(tmp_path: Path) -> None:
    facts = tmp_path / "facts.jsonl"
    facts.write_text('{"subject": "sumo", "relation": "country of origin", "object": "Japan"}\n')
    result = CliRunner().invoke(
        cli, ["eval", "--base", "smollm2-135m-instruct", "--unlearned", str(tmp_path / "absent"),
              "--forget", str(facts), "--out", str(tmp_path / "out")],
    )  # fmt: skip
    assert result.exit_code == 2
    assert f"--unlearned model path {tmp_path / 'absent'}: no such directory" in result.output
    assert not (tmp_path / "out").exists()


# ---------------------------------------------------------------- a black-box base model


@contextlib.contextmanager
def _served(model: str | Path, log: Path):
    """recover-attacks' OpenAI-compatible server on 127.0.0.1 serving ``model`` (stopped after)."""
    import sys

    from recover_attacks.engine import ServerProcess

    serve = (
        f"{sys.executable} -m recover_attacks.serve --model {{model}} --port {{port}} --threads 1"
    )
    server = ServerProcess(serve, model=str(model), log_path=log)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def _shared_base_answers(run: Path, out: Path) -> tuple[int, int]:
    """(questions both base cells answered, how many of those answers are the same)."""
    theirs = json.loads((run / "cells" / "base.json").read_text())["payload"]["answers"]
    mine = json.loads((out / "cells" / "base.json").read_text())["payload"]["answers"]
    shared = [i for i in mine if i in theirs]
    return len(shared), sum(mine[i] == theirs[i] for i in shared)


def test_black_box_base_with_the_unlearned_model_here(saved_run, tmp_path: Path) -> None:
    """The base model only behind an endpoint (served from its weights by recover-attacks' server
    on 127.0.0.1), the run's GA model in-process: the base answers come through the endpoint and
    equal the in-process ones (greedy), so the forget set, FQ per type, RR of Probab (sampled
    in-process on the GA model, same seed) and utility are the run's to the last digit;
    FocusOnKey, which needs the base weights, is skipped and listed with the reason."""
    from leakres_cli.models.black_box import BASE_REASON
    from leakres_cli.models.catalog import resolve_model

    run, expected = saved_run
    base_path = resolve_model("smollm2-135m-instruct")
    out = tmp_path / "eval"
    args = _eval_args(run, run / "models" / "ga", out, "--label", "ga")
    args[args.index("--attacks") + 1] = "probab,focus_on_key"
    with _served(base_path, tmp_path / "base-server.log") as server:
        args[args.index("--base") + 1] = "no-such-model"
        wrong = CliRunner().invoke(cli, [*args, "--base-endpoint", server.base_url])
        args[args.index("--base") + 1] = server.served_model
        result = _invoke([*args, "--base-endpoint", server.base_url])
    assert wrong.exit_code == 2
    assert (
        f"--base-endpoint {server.base_url} serves no model named 'no-such-model' (it serves: "
        f"{server.served_model})" in wrong.output
    )
    assert result.exit_code == 0, result.output
    got = json.loads((out / "results.json").read_text())
    assert got["eval"]["base"] == {
        "model": server.served_model, "endpoint": server.base_url, "kind": "endpoint",
        "tokenizer": base_path,
    }  # fmt: skip
    assert got["eval"]["unlearned"]["kind"] == "model"
    assert got["model_path"] is None  # no base weights were loaded
    assert got["eval"]["attacks_skipped"] == {"focus_on_key": BASE_REASON}
    assert list(got["methods"]["ga"]["attacks"]) == ["probab"]
    assert got["forget_facts"] == expected["forget_facts"]
    assert got["scored_questions"] == expected["scored_questions"]
    n_shared, n_same = _shared_base_answers(run, out)
    assert n_shared >= 6 and n_same == n_shared  # forget + retain facts at least
    mine, theirs = got["methods"]["ga"], expected["methods"]["ga"]
    for key in COMPARED:
        assert mine[key] == theirs[key], key
    for key in ("rr_SH", "rr_MH", "rr_all", "rr_per_type", "n_unjudged"):
        assert mine["attacks"]["probab"][key] == theirs["attacks"]["probab"][key], key
    summary = (out / "summary.md").read_text()
    assert f"- base model: {server.served_model} (endpoint, {server.base_url})" in summary
    assert "- attack focus_on_key skipped: needs the base model's weights" in summary


def test_both_models_black_box(
    saved_run, tmp_path: Path, real_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both models behind endpoints (the paper's out-of-scope API case): the base and the GA
    model each served on 127.0.0.1. Greedy answers through the endpoints give the run's FQ; only
    Probab runs (sampled on the unlearned model's server); FocusOnKey and quantization are skipped
    with their reasons; BBH of both sides goes through the endpoints and judges every example as
    the in-process loop does. The API key and the URL's password are in no output."""
    from leak_metrics.bbh import evaluate_bbh
    from leakres_cli.models.black_box import BASE_REASON, UNLEARNED_REASON
    from leakres_cli.models.catalog import load_model, resolve_model

    api_key, password = "sk-byom2-test-key-0123456789", "hunter2-byom2"
    monkeypatch.setenv("OPENAI_API_KEY", api_key)
    run, expected = saved_run
    base_path = resolve_model("smollm2-135m-instruct")
    out = tmp_path / "eval"
    bbh = ["--bbh-tasks", "boolean_expressions", "--bbh-limit", "4", "--data-dir", str(real_data_dir)]  # fmt: skip
    with (
        _served(base_path, tmp_path / "base-server.log") as base_server,
        _served(run / "models" / "ga", tmp_path / "ga-server.log") as ga_server,
    ):
        base_url = base_server.base_url.replace("http://", f"http://user:{password}@")
        args = _eval_args(run, Path(ga_server.served_model), out, "--label", "ga", *bbh)
        args[args.index("--base") + 1] = base_server.served_model
        args[args.index("--attacks") + 1] = "probab,focus_on_key,quantization"
        result = _invoke(
            [*args, "--base-endpoint", base_url, "--unlearned-endpoint", ga_server.base_url]
        )
    assert result.exit_code == 0, result.output
    got = json.loads((out / "results.json").read_text())
    redacted = base_server.base_url.replace("http://", "http://***@")
    assert got["eval"]["base"]["endpoint"] == redacted
    assert got["eval"]["unlearned"]["kind"] == "endpoint"
    assert got["eval"]["attacks_skipped"] == {
        "focus_on_key": BASE_REASON, "quantization": UNLEARNED_REASON
    }  # fmt: skip
    assert list(got["methods"]["ga"]["attacks"]) == ["probab"]
    probab = got["methods"]["ga"]["attacks"]["probab"]
    assert probab["settings"]["engine"]["base_url"] == ga_server.base_url
    assert got["forget_facts"] == expected["forget_facts"]
    for key in ("per_type", "fq_all_types", "fq_multi_hop", "retain", "s_suc"):
        assert got["methods"]["ga"][key] == expected["methods"]["ga"][key], key
    n_shared, n_same = _shared_base_answers(run, out)
    assert n_shared >= 6 and n_same == n_shared

    # BBH through each endpoint: the in-process loop's verdicts on the same 4 examples
    for cell_name, model_dir in (("bbh-base", base_path), ("ga/bbh", run / "models" / "ga")):
        cell = json.loads((out / "cells" / f"{cell_name}.json").read_text())["payload"]
        assert cell["config"]["generation"] == "caller generate_fn"
        model, tokenizer, _ = load_model(str(model_dir))
        here = evaluate_bbh(
            model, tokenizer, tasks=["boolean_expressions"], limit=4, seed=0, cot=False,
            data_dir=real_data_dir / "bbh", source="local",
        )  # fmt: skip
        assert cell["correct"] == here.correct, cell_name
    utility = got["methods"]["ga"]["utility"]
    assert utility["bbh_ratio"]["n"] == 4 and utility["base"]["n"] == 4

    summary = (out / "summary.md").read_text()
    assert "- both models are black boxes" in summary
    assert "- attack quantization skipped: needs the unlearned model's weights" in summary
    for path in out.rglob("*"):
        if path.is_file() and path.suffix in (".json", ".md", ".html", ".csv", ".txt"):
            text = path.read_text(errors="replace")
            assert api_key not in text and password not in text, path
    assert api_key not in result.output and password not in result.output


def test_black_box_option_errors(tmp_path: Path) -> None:
    """Bad combinations and a dead endpoint: one line each, exit 2, before --out exists; the
    URL's credentials never printed."""
    facts = tmp_path / "facts.jsonl"
    facts.write_text('{"subject": "sumo", "relation": "country of origin", "object": "Japan"}\n')
    adapter = tmp_path / "adapter"
    adapter.mkdir()
    (adapter / "adapter_config.json").write_text("{}")
    out = tmp_path / "out"
    common = ["eval", "--base", "smollm2-135m-instruct", "--forget", str(facts), "--out", str(out)]
    dead = "http://user:s3cret-pw@127.0.0.1:9/v1"
    cases = [
        (["--unlearned", "x", "--tokenizer", "smollm2-135m-instruct"],
         "--tokenizer formats the prompts of a black-box base; it needs --base-endpoint"),
        (["--unlearned", "x", "--base-endpoint", dead, "--unlearned-endpoint", dead,
          "--engine", "openai", "--engine-cmd", "serve {model} --port {port}"],
         "--engine openai serves local weights; with --base-endpoint and --unlearned-endpoint"),
        (["--unlearned", str(adapter), "--base-endpoint", dead],
         "is a peft adapter: it needs the weights it attaches to (--adapter-base MODEL)"),
        (["--unlearned", "x", "--base-endpoint", "127.0.0.1:9/v1"],
         "--base-endpoint expects an http(s)://host[:port]/v1 URL"),
        # a local unlearned model that exists (model paths are checked first, before endpoints)
        (["--unlearned", "smollm2-135m-instruct", "--base-endpoint", dead],
         "--base-endpoint http://***@127.0.0.1:9/v1 is unreachable (APIConnectionError)"),
        (["--unlearned", "x", "--unlearned-endpoint", dead],
         "--unlearned-endpoint http://***@127.0.0.1:9/v1 is unreachable (APIConnectionError)"),
    ]  # fmt: skip
    for extra, message in cases:
        result = CliRunner().invoke(cli, [*common, *extra])
        assert result.exit_code == 2, (extra, result.output)
        assert message in result.output, (extra, result.output)
        assert "s3cret-pw" not in result.output
        assert len(result.output.strip().splitlines()) == 1, result.output
        assert not out.exists()
