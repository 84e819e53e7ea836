"""Issue 36 item 1: every question type asks for its answer's form, and records and exports carry it.

Each type declares an answer-form instruction (a plug-in type without one gets its answer kind's
default); :func:`kg_qgen.render_prompt` puts it after the question in the ``answer-form`` prompt
and leaves it out in the ``bare`` one; built records and every export carry it.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import kg_qgen
import pytest
from kg_qgen.example_type import RELATION_CHAIN
from kg_qgen.export import export_hf, export_lm_eval
from kg_qgen.lm_eval_task import read_questions
from kg_qgen.pipeline import build, save
from kg_qgen.prompt_form import DEFAULT_INSTRUCTIONS, instruction_for, type_instruction
from kg_qgen.qtypes import QUESTION_TYPE_REGISTRY
from kg_qgen.sources.builtin import load_builtin


@pytest.fixture(scope="module")
def built() -> kg_qgen.BuildResult:
    return build(load_builtin(), per_type=3, seed=0)


@pytest.fixture(scope="module")
def set_dir(built: kg_qgen.BuildResult, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("pf") / "set"
    save(built, out, meta={"source": {"name": "builtin", "input": None}})
    return out


def test_every_builtin_type_declares_a_short_generic_instruction() -> None:
    for code in kg_qgen.QUESTION_TYPES:
        qtype = kg_qgen.get_question_type(code)
        assert qtype.instruction == DEFAULT_INSTRUCTIONS[qtype.answer_kind]
        assert type_instruction(code) == qtype.instruction
    open_kind = {kg_qgen.get_question_type(t).instruction for t in ("SH", "HS", "MP", "LL", "CC")}
    option_kind = {kg_qgen.get_question_type(t).instruction for t in ("DS", "MT")}
    assert len(open_kind) == len(option_kind) == 1 and open_kind != option_kind


def test_records_carry_their_instruction_and_render_per_form(built) -> None:
    seen = set()
    for q in built.questions:
        instruction = kg_qgen.get_question_type(q["type"]).instruction
        assert q["instruction"] == instruction
        assert kg_qgen.render_prompt(q, "bare") == q["question"]
        assert kg_qgen.render_prompt(q, "answer-form") == f"{q['question']} {instruction}"
        assert kg_qgen.render_prompt(q) == kg_qgen.render_prompt(q, "answer-form")  # the default
        # the instruction reveals neither the gold nor an option
        words = instruction.lower()
        assert q["answer"].lower() not in words
        assert not any(o.lower() in words.split() for o in q.get("options") or [])
        seen.add(q["type"])
    assert seen == set(kg_qgen.QUESTION_TYPES)


def test_bare_form_empties_the_instruction_and_unknown_form_is_refused(built) -> None:
    q = built.questions[0]
    assert kg_qgen.with_instructions([q], "bare")[0]["instruction"] == ""
    assert kg_qgen.with_instructions([q], "answer-form")[0]["instruction"] == q["instruction"]
    with pytest.raises(kg_qgen.KgQgenInputError, match="unknown prompt form 'short'"):
        kg_qgen.render_prompt(q, "short")
    with pytest.raises(kg_qgen.KgQgenInputError, match="record x, field 'question'"):
        kg_qgen.render_prompt({"id": "x", "type": "SH", "question": ""})


def test_a_plugin_type_without_an_instruction_gets_its_kinds_default() -> None:
    assert RELATION_CHAIN.instruction == ""  # the example plug-in declares none
    kg_qgen.register_question_type(RELATION_CHAIN)
    try:
        assert type_instruction("RC") == DEFAULT_INSTRUCTIONS["open"]
        rc = build(load_builtin(), types=("SH", "RC"), per_type=2, seed=0).questions
        assert {q["instruction"] for q in rc if q["type"] == "RC"} == {"Give only the answer."}
        yes_no = dataclasses.replace(RELATION_CHAIN, answer_kind="yes-no")
        kg_qgen.register_question_type(yes_no)
        assert type_instruction("RC") == DEFAULT_INSTRUCTIONS["yes-no"]
        own = dataclasses.replace(RELATION_CHAIN, instruction="Name the place.")
        kg_qgen.register_question_type(own)
        record = {"id": "r", "type": "RC", "question": "Where?"}
        assert kg_qgen.render_prompt(record) == "Where? Name the place."
    finally:
        QUESTION_TYPE_REGISTRY._builtin.pop("rc", None)
    # a record of a type this process does not know: the kind its options imply
    assert instruction_for({"type": "ZZ", "options": ["a", "b"]}) == DEFAULT_INSTRUCTIONS["options"]
    assert instruction_for({"type": "ZZ", "options": ["yes", "no"]}) == "Answer yes or no."
    assert instruction_for({"type": "ZZ"}) == DEFAULT_INSTRUCTIONS["open"]
    # a record's own instruction wins over its type's
    assert instruction_for({"type": "SH", "instruction": "Say it."}) == "Say it."


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("form", ["answer-form", "bare"])
def test_lm_eval_export_asks_in_the_chosen_form(set_dir: Path, tmp_path: Path, form: str) -> None:
    out = export_lm_eval(set_dir, tmp_path / "lm", prompt_form=form)
    for q in _lines(out / "questions.jsonl"):
        assert q["instruction"] == kg_qgen.get_question_type(q["type"]).instruction
    yaml = (out / "kgqgen_ds.yaml").read_text()
    expected = "{{question}}" if form == "bare" else "{{question}} {{instruction}}"
    assert f"doc_to_text: {json.dumps(expected)}" in yaml
    row = read_questions("DS", out)[0]
    assert row["instruction"] == "Answer with the correct option only."
    assert json.loads((out / "export.json").read_text())["prompt_form"] == form
    assert f"Prompt form `{form}`" in (out / "README.md").read_text()


def test_hf_export_rows_carry_instruction_and_prompt(set_dir: Path, tmp_path: Path) -> None:
    import datasets

    for form in ("answer-form", "bare"):
        out = export_hf(set_dir, tmp_path / form, prompt_form=form)
        rows = list(datasets.load_from_disk(str(out))["MT"])
        assert rows and all(
            r["instruction"] == "Answer with the correct option only." for r in rows
        )
        assert [r["prompt"] for r in rows] == [kg_qgen.render_prompt(r, form) for r in rows]
        assert f"prompt form `{form}`" in (out / "README.md").read_text()


def test_a_set_built_before_instructions_gets_its_types_in_the_export(
    set_dir: Path, tmp_path: Path
) -> None:
    old = tmp_path / "old"
    old.mkdir()
    rows = [
        {k: v for k, v in q.items() if k != "instruction"}
        for q in _lines(set_dir / "questions.jsonl")
    ]
    (old / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = export_lm_eval(old, tmp_path / "lm")
    exported = _lines(out / "questions.jsonl")
    assert all(q["instruction"] == type_instruction(q["type"]) for q in exported)


def test_export_cli_takes_the_prompt_form(set_dir: Path, tmp_path: Path) -> None:
    from click.testing import CliRunner
    from kg_qgen.cli import cli

    out = tmp_path / "lm"
    args = ["export", str(set_dir), "--format", "lm-eval", str(out), "--prompt-form", "bare"]
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 0, res.output
    assert 'doc_to_text: "{{question}}"' in (out / "kgqgen_sh.yaml").read_text()
    res = CliRunner().invoke(cli, [*args[:-1], "short"])
    assert res.exit_code != 0 and "'short' is not one of 'answer-form', 'bare'" in res.output
