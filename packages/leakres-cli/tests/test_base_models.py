"""``leakres run --base tuned|taught`` (issue 36 items 2-3) on the real SmolLM2-135M-Instruct, at a
tiny size: theta_p is taught before the base evaluation on worked examples that rest on no fact of
the run's questions, cached (a rerun loads it, same weights, same results), recorded in results.json
and summary.md; ``taught`` records its control model's per-type accuracy beside the taught one's;
``pretrained`` keeps the fingerprint and results.json it had."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from leakres_cli.config.run_config import PRESETS, preset_config
from leakres_cli.errors import LeakresError
from leakres_cli.main import cli
from leakres_cli.outputs.schema import validate_results
from leakres_cli.records import fact_key
from leakres_cli.stages.base_model import corpus_digest, question_facts

TINY = [
    "run", "--quiet", "--types", "SH,HS", "--per-type", "6", "--sh-pool", "30", "--n-forget", "3",
    "--n-retain", "3", "--methods", "ga", "--attacks", "probab", "--max-new-tokens", "20",
    "--seed", "0", "--set", "ga.lr=1e-4", "--set", "ga.epochs=5", "--teach-examples", "16",
    "--teach-epochs", "1", "--teach-lr", "1e-5", "--set", "probab.num_samples=2",
]  # fmt: skip


def _run(out: Path, *extra: str) -> dict:
    result = CliRunner().invoke(cli, [*TINY, *extra, "--out", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads((out / "results.json").read_text())


@pytest.fixture(scope="module")
def tuned(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, dict]:
    out = tmp_path_factory.mktemp("tuned") / "run"
    first = _run(out, "--base", "tuned")
    second = _run(out, "--base", "tuned")  # the same command again: resumes, loads the model
    return out, first, second


def test_tuned_base_is_recorded_and_validates(tuned) -> None:
    out, first, _ = tuned
    validate_results(first)
    block = first["base_model"]
    assert block["kind"] == "tuned" and first["config"]["base"] == "tuned"
    assert block["corpus"]["counts"] == {"worked:HS": 16}  # tuned: the worked examples only
    assert block["training"]["steps"] == 2 == len(block["training"]["loss_curve"])  # 16 / 8
    assert block["settings"]["lr"] == 1e-5 and block["cache"]["hit"] is False
    folder = out / "cache" / "base-model" / block["cache"]["key"]
    assert (folder / "model.safetensors").is_file()
    summary = (out / "summary.md").read_text()
    assert "**Base model theta_p: tuned**" in summary and "16 examples" in summary


def test_worked_examples_rest_on_no_fact_of_the_run(tuned) -> None:
    """The corpus taught (cached beside the model, with the recorded digest) has worked examples
    that rest on no forget or retain fact, and every scored question avoids their facts: the
    scored counts are exactly the questions reaching a forget fact that rest on none of them."""
    out, first, _ = tuned
    folder = out / "cache" / "base-model" / first["base_model"]["cache"]["key"]
    lines = (folder / "corpus.jsonl").read_text().splitlines()
    examples = [json.loads(line) for line in lines]
    assert corpus_digest(examples) == first["base_model"]["corpus"]["digest"]
    taught = {fact_key(p) for e in examples for p in e["facts"]}
    forget = {fact_key(f) for f in first["forget_facts"]}
    retain = {fact_key(f) for f in first["retain_facts"]}
    assert taught and not taught & (forget | retain)
    data = json.loads((out / "cells" / "questions.json").read_text())["payload"]
    reaching = [
        q for q in data["questions"] if q["type"] == "HS" and fact_key(q["target"]) in forget
    ]
    kept = [q for q in reaching if not question_facts([q]) & taught]
    assert first["scored_questions"]["HS"] == len(kept)


def test_a_rerun_loads_the_cached_model_and_writes_the_same_numbers(tuned) -> None:
    _, first, second = tuned
    assert second["base_model"]["cache"]["hit"] is True
    assert second["base_model"]["sha256"] == first["base_model"]["sha256"]
    assert second["methods"] == first["methods"] and second["types"] == first["types"]


def _weights_digest(model) -> str:
    import hashlib

    digest = hashlib.sha256()
    for tensor in model.state_dict().values():
        digest.update(tensor.detach().cpu().contiguous().numpy().tobytes())
    return digest.hexdigest()


def test_taught_run_records_the_control_beside_the_taught_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mechanics only, on the built-in facts (the model knows them already, so a control is not
    near chance here; the taught preset's control is measured in the README)."""
    import unlearn_zoo

    started_from: list[tuple[str, int]] = []  # (weights digest, examples) of each teaching
    real_teach = unlearn_zoo.teach

    def spy(model, tokenizer, examples, *args, **kwargs):
        started_from.append((_weights_digest(model), len(examples)))
        return real_teach(model, tokenizer, examples, *args, **kwargs)

    monkeypatch.setattr(unlearn_zoo, "teach", spy)
    results = _run(tmp_path / "run", "--base", "taught", "--teach-statements", "1",
                   "--teach-epochs", "0.02")  # fmt: skip
    # theta_p and the control are both taught from the pretrained weights: the control must not
    # start from theta_p, which already holds the forget facts it is kept from
    assert len(started_from) == 2 and started_from[0][1] > started_from[1][1]
    assert started_from[0][0] == started_from[1][0]
    validate_results(results)
    block = results["base_model"]
    assert block["kind"] == "taught" and block["corpus"]["counts"]["statement"] > 0
    control = block["control"]
    assert set(control["per_type"]) == {"SH", "HS"}
    assert control["n_forget_left_out"] == len(results["forget_facts"]) == 3
    for qtype, row in control["per_type"].items():
        assert row["n"] == results["scored_questions"][qtype]
        assert row["acc_control"]["n"] == row["n"] and row["acc_taught"]["n"] == row["n"]
    # the control was taught fewer statements: none of a forget fact
    assert control["corpus"]["counts"]["statement"] < block["corpus"]["counts"]["statement"]
    assert "**Control**" in (tmp_path / "run" / "summary.md").read_text()
    # each fact is taught under the run's own single-hop question of it, as the run asks it
    data = json.loads((tmp_path / "run" / "cells" / "questions.json").read_text())["payload"]
    # (the SH pool's facts: no worked example rests on one, so each is stated and asked; a
    # reserve fact a worked example rests on is stated once, unasked, and its question dropped)
    asked = {
        fact_key(q["target"]): f"{q['question']} {q['instruction']}"
        for q in data["questions"]
        if q["type"] == "SH"
    }
    folder = tmp_path / "run" / "cache" / "base-model" / block["cache"]["key"]
    taught = [json.loads(line) for line in (folder / "corpus.jsonl").read_text().splitlines()]
    prompts = {fact_key(e["facts"][0]): e["prompt"] for e in taught if e["kind"] == "question"}
    assert asked and set(asked) <= set(prompts)
    assert all(prompts[key] == prompt for key, prompt in asked.items())


def test_pretrained_keeps_its_fingerprint_and_the_presets_set_the_base() -> None:
    smoke = preset_config("smoke").fingerprint_dict()
    assert not {"base", "teach_source", "teach_lr"} & set(smoke)
    assert preset_config("smoke", teach_lr=1.0).fingerprint_dict() == smoke
    assert preset_config("smoke", base="tuned").fingerprint_dict()["base"] == "tuned"
    assert PRESETS["tuned"][1]["base"] == "tuned" and PRESETS["taught"][1]["base"] == "taught"
    assert preset_config("taught").source == "fictional"
    assert len(preset_config("tuned").types) == len(preset_config("taught").types) == 7


def test_base_refuses_what_it_cannot_do(tmp_path: Path) -> None:
    from leakres_cli.config.run_checks import check_base

    with pytest.raises(LeakresError, match="--engine local"):
        check_base(preset_config("smoke", base="tuned", engine="openai"))
    with pytest.raises(LeakresError, match="multi-hop"):
        check_base(preset_config("smoke", base="tuned", types=("SH",)))
    result = CliRunner().invoke(cli, ["run", "--base", "retrained", "--out", str(tmp_path)])
    assert result.exit_code != 0 and "retrained" in result.output
