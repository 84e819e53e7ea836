"""Issue 36 item 1: ``--prompt-form answer-form|bare`` reaches every prompt the run decodes.

The option (and its environment variable) sets RunConfig.prompt_form, which is part of the cell
fingerprint; the evaluation's prompts and the attacks' prompts (Probab, and FocusOnKey, which
rewrites the question and must still append the instruction) are the question plus its type's
instruction under ``answer-form``, the question alone under ``bare``. The generators are spied
on (no model decodes here), the questions are kg-qgen's real ones on the built-in facts.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from leakres_cli.commands import eval as eval_module
from leakres_cli.commands import run as run_module
from leakres_cli.config.run_config import RunConfig
from leakres_cli.scale.store import CellStore, fingerprint
from leakres_cli.stages.pipeline import Benchmark

SMALL = {"types": ("SH", "HS", "DS"), "per_type": 2, "sh_pool": 4, "methods": (), "attacks": ()}
INSTRUCTION = {"SH": "Give only the answer.", "HS": "Give only the answer."}
INSTRUCTION["DS"] = "Answer with the correct option only."


def _config(args: list[str]) -> RunConfig:
    # `leakres` gives its commands click's auto_envvar_prefix LEAKRES (-> LEAKRES_RUN_...)
    ctx = run_module.run_command.make_context("run", args, auto_envvar_prefix="LEAKRES_RUN")
    return run_module.config_from_params(ctx.params)


def test_the_option_and_its_variable_reach_the_config(monkeypatch) -> None:
    assert _config([]).prompt_form == "answer-form"  # the default
    assert _config(["--prompt-form", "bare"]).prompt_form == "bare"
    monkeypatch.setenv("LEAKRES_RUN_PROMPT_FORM", "bare")
    assert _config([]).prompt_form == "bare"
    assert "prompt_form" in eval_module.EVAL_FIELDS  # `leakres eval --prompt-form` too
    flags = {o for p in eval_module.eval_command.params for o in getattr(p, "opts", [])}
    assert "--prompt-form" in flags
    with pytest.raises(Exception, match="'short' is not one of 'answer-form', 'bare'"):
        _config(["--prompt-form", "short"])


def test_cells_of_different_forms_never_mix(tmp_path: Path) -> None:
    answer_form, bare = RunConfig(), RunConfig(prompt_form="bare")
    assert answer_form.fingerprint_dict()["prompt_form"] == "answer-form"
    first = CellStore(tmp_path, fingerprint(answer_form.fingerprint_dict()))
    second = CellStore(tmp_path, fingerprint(bare.fingerprint_dict()))
    assert first.config_fingerprint != second.config_fingerprint
    first.put("base", {"answers": ["x"]})
    assert first.get("base") == {"answers": ["x"]} and second.get("base") is None


@pytest.fixture(scope="module")
def questions(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    out = tmp_path_factory.mktemp("pf")
    data = Benchmark(RunConfig(**SMALL), out, progress=False).build_questions()
    found = data["questions"]
    assert {q["type"] for q in found} == set(INSTRUCTION)
    return found


def _expected(q: dict, form: str) -> str:
    return q["question"] if form == "bare" else f"{q['question']} {INSTRUCTION[q['type']]}"


@pytest.mark.parametrize("form", ["answer-form", "bare"])
def test_evaluation_prompts_follow_the_form(tmp_path, monkeypatch, questions, form) -> None:
    import recover_attacks

    seen: list[str] = []

    def spy(model, tokenizer, prompts, **kwargs):
        seen.extend(prompts)
        return [["I do not know."] for _ in prompts]

    monkeypatch.setattr(recover_attacks, "generate", spy)
    monkeypatch.setattr(Benchmark, "model", lambda self: (object(), None))
    bench = Benchmark(RunConfig(**SMALL, prompt_form=form), tmp_path, progress=False)
    bench.answer(object(), questions, "base")
    assert seen == [_expected(q, form) for q in questions]
    assert bench.decoding()["prompt_form"] == form


class _Original:
    """theta_p as FocusOnKey uses it around its (spied) key-token search."""

    training = False

    def eval(self) -> None: ...

    def train(self, mode: bool) -> None: ...


@pytest.mark.parametrize("form", ["answer-form", "bare"])
@pytest.mark.parametrize("attack", ["probab", "focus_on_key"])
def test_attack_prompts_follow_the_form(tmp_path, monkeypatch, questions, form, attack) -> None:
    from recover_attacks.attacks import focus_on_key, probab

    seen: list[str] = []

    def spy(model, tokenizer, prompts, **kwargs):
        seen.extend(prompts)
        n = kwargs.get("num_return_sequences", 1)
        return [["I do not know."] * n for _ in prompts]

    def contributions(model, tokenizer, question, answer, compute):
        first = question.split()[0]  # the first word is the key
        return [focus_on_key.TokenContribution(0, 0, len(first), first, 1.0)]

    monkeypatch.setattr(probab, "generate", spy)
    monkeypatch.setattr(focus_on_key, "generate", spy)
    monkeypatch.setattr(focus_on_key.contribution_cache, "get", contributions)
    monkeypatch.setattr(Benchmark, "model", lambda self: (_Original(), object()))
    bench = Benchmark(RunConfig(**SMALL, prompt_form=form), tmp_path, progress=False)
    payload = bench.attack("ga", attack, questions, [], {}, lambda: object())
    if attack == "probab":
        assert seen == [_expected(q, form) for q in questions]
    else:  # the rewrite "QUESTION (Key: K, K)" (keys from the bare question), then the instruction
        for q, prompt in zip(questions, seen, strict=True):
            key = q["question"].split()[0].strip(focus_on_key._STRIP)
            rewrite = f"{q['question']} (Key: {key}, {key})"
            assert prompt == (rewrite if form == "bare" else f"{rewrite} {INSTRUCTION[q['type']]}")
    assert payload["decoding"]["prompt_form"] == form
    assert set(payload["recovered"]) == {q["id"] for q in questions}


@pytest.mark.parametrize("form", ["answer-form", "bare"])
def test_unlearning_trains_on_the_prompt_the_run_asks(questions, form) -> None:
    from leakres_cli.stages.unlearning import unlearn_examples

    sh = [q for q in questions if q["type"] == "SH"]
    examples = unlearn_examples(sh, form)
    assert [e["question"] for e in examples] == [_expected(q, form) for q in sh]
    assert [e["answer"] for e in examples] == [q["answer"] for q in sh]
