"""BBH: data loading, prompt building, answer extraction, cached generation, and a real
SmolLM2-135M-Instruct run on a 3-task subset."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
import torch
from conftest import is_slice
from leak_metrics.bbh import (
    BBH_TASKS,
    build_prompt,
    direct_prompt,
    evaluate_bbh,
    extract_answer,
    few_shot_prefix,
    generate_batched,
    is_correct,
    load_bbh_task,
    normalize_answer,
    select_examples,
)
from leak_metrics.metrics import utility_ratio


@pytest.fixture(autouse=True)
def one_torch_thread():
    """On a CPU shared by several jobs, a second intra-op thread mostly spins: one thread is
    ~10x faster there. Restored afterwards so other test modules keep their setting."""
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)


def test_all_27_tasks_load_from_local_copy(bbh_dir: Path) -> None:
    assert len(BBH_TASKS) == 27
    # The full staged copy has all 27 tasks; the shipped slice three of them (tests/data/bbh/SOURCE.md).
    names = (
        BBH_TASKS
        if not is_slice(bbh_dir)
        else sorted(p.stem for p in (bbh_dir / "bbh").glob("*.json"))
    )
    assert len(names) == (27 if not is_slice(bbh_dir) else 3)
    total = 0
    for name in names:
        task = load_bbh_task(name, data_dir=bbh_dir, source="local")
        assert "canary" not in task.cot_prompt.lower()
        assert task.cot_prompt.count("\n\nQ: ") == 3
        total += len(task.examples)
    assert total == (6511 if not is_slice(bbh_dir) else 250 + 5 + 5)  # counts stated in SOURCE.md


def test_local_source_fails_clearly_without_data(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="LEAKRES_DATA_DIR"):
        load_bbh_task("navigate", data_dir=tmp_path, source="local")
    with pytest.raises(ValueError, match="did you mean 'navigate'"):
        load_bbh_task("navigat", data_dir=tmp_path)


def test_prompts(bbh_dir: Path) -> None:
    task = load_bbh_task("sports_understanding", data_dir=bbh_dir, source="local")
    cot = build_prompt(task, "Is it plausible?", cot=True)
    assert cot.startswith(task.cot_prompt)
    assert cot.endswith("\n\nQ: Is it plausible?\nA: Let's think step by step.")
    direct = direct_prompt(task.cot_prompt)
    assert "Let's think step by step" not in direct
    assert direct.count("A: So the answer is ") == 3
    assert build_prompt(task, "x", cot=False).endswith("Q: x\nA: So the answer is")
    assert few_shot_prefix(task, cot=False) == direct


@pytest.mark.parametrize(
    ("generation", "cot", "extracted"),
    [
        (" Bam is a player. So the answer is yes.\n\nQ: next", True, "yes."),
        (" Steps... So the answer is (B).", True, "(B)."),
        (" blah The Answer Is 24.\nQ: Is 3 > 2?\nA: So the answer is no.", True, "24."),
        (" I cannot tell.\n\nQ: So the answer is yes.", True, None),  # later example ignored
        (" False.", False, "False."),
    ],
)
def test_extract_answer(generation: str, cot: bool, extracted: str | None) -> None:
    assert extract_answer(generation, cot=cot) == extracted


@pytest.mark.parametrize(
    ("extracted", "target", "correct"),
    [
        ("(B).", "(B)", True),
        ("B", "(B)", True),
        ("(B) the second option", "(B)", True),
        ("(C)", "(B)", False),
        ("True.", "True", True),
        ("valid", "invalid", False),
        ("24", "24", True),
        ("] ] )", "] ] )", True),
        (None, "yes", False),
    ],
)
def test_is_correct(extracted: str | None, target: str, correct: bool) -> None:
    assert is_correct(extracted, target) is correct


def test_normalize_answer_option_letters_only_for_multiple_choice() -> None:
    assert normalize_answer("Apple pie.") == "apple pie"
    assert normalize_answer("A tree.") == "a tree"  # free text: not option (A)
    assert normalize_answer("A tree.", multiple_choice=True) == "(a)"
    assert is_correct("B", "(B)") and not is_correct("B", "b c")


def test_select_examples_is_seeded() -> None:
    a = select_examples(250, 5, seed=0, task="navigate")
    assert a == select_examples(250, 5, seed=0, task="navigate")
    assert a != select_examples(250, 5, seed=1, task="navigate")
    assert len(set(a)) == 5 and a == sorted(a)
    assert select_examples(3, 5, seed=0, task="x") == [0, 1, 2]


def test_prefix_cache_gives_the_same_greedy_output(smollm2: Any) -> None:
    """Reusing the few-shot KV cache (padding between prefix and question) must not change
    greedy decoding; checked on a small random Llama with the real tokenizer."""
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    tokenizer = AutoTokenizer.from_pretrained(smollm2.tokenizer_dir)
    torch.manual_seed(0)
    config = LlamaConfig(
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        vocab_size=len(tokenizer),
    )
    model = LlamaForCausalLM(config).eval()
    prefix = "Q: What is 2 + 2?\nA: So the answer is 4."
    prompts = [f"{prefix}\n\nQ: {q}\nA:" for q in ("Hi?", "What colour is the clear sky?", "3?")]
    cached = generate_batched(
        model, tokenizer, prompts, batch_size=3, max_new_tokens=6, shared_prefix=prefix
    )
    plain = generate_batched(model, tokenizer, prompts, batch_size=3, max_new_tokens=6)
    one_by_one = [
        generate_batched(model, tokenizer, [p], batch_size=1, max_new_tokens=6)[0] for p in prompts
    ]
    assert cached == plain == one_by_one
    assert all(len(text) > 0 for text in cached)


def test_smollm2_on_three_task_subset(smollm2: Any, bbh_dir: Path) -> None:
    torch.manual_seed(0)
    model, tokenizer = smollm2.model, smollm2.tokenizer
    tasks = ["boolean_expressions", "sports_understanding", "web_of_lies"]
    kwargs = {"tasks": tasks, "limit": 5, "max_new_tokens": 4, "cot": False, "data_dir": bbh_dir}
    result = evaluate_bbh(model, tokenizer, **kwargs)

    assert list(result.per_task) == tasks
    assert len(result.records) == 15
    for task in tasks:
        metric = result.per_task[task]
        task_records = [r for r in result.records if r["task"] == task]
        assert metric.n == 5 and len(task_records) == 5
        # The accuracy is recomputed from the recorded generations, not taken on trust.
        expected = sum(is_correct(r["extracted"], r["target"]) for r in task_records) / 5
        assert metric.value == pytest.approx(expected)
        assert 0.0 <= metric.ci_low <= metric.value <= metric.ci_high <= 1.0  # type: ignore[operator]
    for record in result.records:
        assert record["generation"].strip()  # the model produced text ...
        assert record["extracted"] == extract_answer(record["generation"], cot=False)
    # ... and these are yes/no/True/False tasks a 3-shot answer-only prompt makes it answer.
    assert sum(r["extracted"] is not None for r in result.records) >= 12
    per_task_mean = sum(m.value for m in result.per_task.values()) / 3  # type: ignore[misc]
    assert result.overall.value == pytest.approx(per_task_mean)
    assert result.overall.n == 15 and result.wall_time > 0
    assert result.config["limit"] == 5 and result.config["max_new_tokens"] == 4
    # Same config -> same numbers (greedy decoding, seeded subset and bootstrap); tasks are
    # generated separately, so re-running one task reproduces its batch exactly.
    again = evaluate_bbh(model, tokenizer, **{**kwargs, "tasks": tasks[:1]})
    first = [r for r in result.records if r["task"] == tasks[0]]
    assert [r["generation"] for r in again.records] == [r["generation"] for r in first]
    assert again.per_task[tasks[0]] == result.per_task[tasks[0]]
    ratio = utility_ratio([r["correct"] for r in first], again.correct)
    assert ratio.value is None or math.isclose(ratio.value, 1.0)


def test_load_model_rejects_ambiguous_gguf_directory(tmp_path: Path) -> None:
    from leak_metrics import InputError
    from leak_metrics.bbh import load_model

    (tmp_path / "a.gguf").write_bytes(b"")
    (tmp_path / "b.gguf").write_bytes(b"")
    with pytest.raises(InputError, match=r"several \.gguf files \(a\.gguf, b\.gguf\)"):
        load_model(tmp_path)


# --- loader on a fixture in the real format (no ../shared needed) ------------------------------

FIXTURE_PROMPT = """BIG-Bench Hard canary string: not a real canary (fixture written for the tests).
-----
Evaluate the result of a random Boolean expression.

Q: not ( ( not not True ) ) is
A: Let's think step by step.
Remember that (i) expressions inside brackets are always evaluated first.
We first simplify this expression "Z" as follows: "Z = not ( ( not not True ) ) = not ( ( A ) )" where "A = not not True".
Let's evaluate A: A = not not True = not (not True) = not False = True.
Plugging in A, we get: Z = not ( ( A ) ) = not ( ( True ) ) = not True = False. So the answer is False.

Q: True and False and not True and True is
A: Let's think step by step.
We first simplify: "Z = True and False and not True and True = A and B" where "A = True and False" and "B = not True and True".
A = False and B = False, so Z = False. So the answer is False.

Q: not not ( not ( False ) ) is
A: Let's think step by step.
Z = not not ( not ( False ) ) = not not True = True. So the answer is True."""

FIXTURE_EXAMPLES = {
    "examples": [
        {"input": "not ( True ) and ( True ) is", "target": "False"},
        {"input": "True and not not ( not False ) is", "target": "True"},
        {"input": "not True or ( False and True ) is", "target": "False"},
    ]
}


@pytest.fixture()
def fixture_dir(tmp_path: Path) -> Path:
    import json

    (tmp_path / "bbh").mkdir()
    (tmp_path / "cot-prompts").mkdir()
    (tmp_path / "bbh" / "boolean_expressions.json").write_text(json.dumps(FIXTURE_EXAMPLES))
    (tmp_path / "cot-prompts" / "boolean_expressions.txt").write_text(FIXTURE_PROMPT)
    return tmp_path


def test_loader_on_a_fixture_in_the_real_format(fixture_dir: Path) -> None:
    task = load_bbh_task("boolean_expressions", data_dir=fixture_dir, source="local")
    assert task.examples == FIXTURE_EXAMPLES["examples"]
    assert task.cot_prompt.startswith("Evaluate the result of a random Boolean expression.")
    assert "canary" not in task.cot_prompt and task.cot_prompt.count("\n\nQ: ") == 3
    direct = direct_prompt(task.cot_prompt)
    assert direct.count("A: So the answer is ") == 3 and "step by step" not in direct
    assert direct.endswith("Q: not not ( not ( False ) ) is\nA: So the answer is True.")


def test_loader_reports_the_bad_file_and_record(fixture_dir: Path) -> None:
    from leak_metrics import InputError

    path = fixture_dir / "bbh" / "boolean_expressions.json"
    path.write_text('{"examples": [{"input": "x", "target": "True"}, {"input": "y"}]}')
    with pytest.raises(InputError, match=r"bbh/boolean_expressions.json: example #1 .*'target'"):
        load_bbh_task("boolean_expressions", data_dir=fixture_dir, source="local")
    path.write_text("[1, 2]")
    with pytest.raises(InputError, match="expected a JSON object with 'examples'"):
        load_bbh_task("boolean_expressions", data_dir=fixture_dir, source="local")


def test_default_data_dir_comes_from_the_environment_only(monkeypatch, fixture_dir: Path) -> None:
    from leak_metrics.bbh import default_data_dir

    monkeypatch.setenv("LEAKRES_DATA_DIR", str(fixture_dir.parent))
    assert default_data_dir() == fixture_dir.parent / "bbh"
    monkeypatch.delenv("LEAKRES_DATA_DIR")
    assert default_data_dir() is None  # no source-checkout path guessed by the library
    with pytest.raises(FileNotFoundError, match="LEAKRES_DATA_DIR"):
        load_bbh_task("navigate", source="local")


def test_evaluate_with_a_caller_generate_fn(fixture_dir: Path) -> None:
    """The caller's generate_fn decodes: one call per task, the STOP strings, the budget."""
    calls: list[tuple[int, int, list[str]]] = []
    answers = {"not ( True ) and ( True ) is": "False", "True and not not ( not False ) is": "True"}

    def generate_fn(prompts: list[str], max_new_tokens: int, stop: list[str]) -> list[str]:
        calls.append((len(prompts), max_new_tokens, stop))
        out = []
        for p in prompts:
            question = p.rsplit("\n\nQ: ", 1)[1].split("\nA:", 1)[0]
            out.append(f" Thinking. So the answer is {answers.get(question, 'maybe')}.")
        return out

    result = evaluate_bbh(
        tasks=["boolean_expressions"], data_dir=fixture_dir, source="local", generate_fn=generate_fn
    )
    assert calls == [(3, 256, ["\n\n", "\nQ:"])]
    assert [r["correct"] for r in result.records] == [True, True, False]
    assert result.per_task["boolean_expressions"].value == pytest.approx(2 / 3)
    assert result.config["generation"] == "caller generate_fn"

    def broken(prompts: list[str], max_new_tokens: int, stop: list[str]) -> list[str]:
        return ["x"]

    from leak_metrics import InputError

    with pytest.raises(InputError, match="boolean_expressions: generate_fn returned 1 items for 3"):
        evaluate_bbh(
            tasks=["boolean_expressions"], data_dir=fixture_dir, source="local", generate_fn=broken
        )
    with pytest.raises(InputError, match="needs a model and its tokenizer, or a generate_fn"):
        evaluate_bbh(tasks=["boolean_expressions"], data_dir=fixture_dir, source="local")


def test_fallback_loop_leaves_the_tokenizer_alone_and_cuts_at_stop(smollm2: Any) -> None:
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    tokenizer = AutoTokenizer.from_pretrained(smollm2.tokenizer_dir)
    tokenizer.pad_token = None
    tokenizer.padding_side = "right"
    torch.manual_seed(0)
    model = LlamaForCausalLM(
        LlamaConfig(
            hidden_size=32,
            intermediate_size=64,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
            vocab_size=len(tokenizer),
        )
    ).eval()
    prompts = ["Q: 1?\nA:", "Q: What colour is the sky?\nA:"]
    plain = generate_batched(model, tokenizer, prompts, batch_size=2, max_new_tokens=8)
    assert tokenizer.pad_token is None and tokenizer.padding_side == "right"
    # a stop string taken from the plain continuation cuts the text before it
    words = plain[1].split()
    stop = words[len(words) // 2] if words else "\n"
    cut = generate_batched(
        model, tokenizer, prompts[1:], batch_size=1, max_new_tokens=8, stop_strings=[stop]
    )[0]
    assert stop not in cut and plain[1].startswith(cut)
