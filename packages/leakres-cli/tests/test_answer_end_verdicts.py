"""Decoding only what is judged (issue 26): with the judge's stop rule injected, the real default
model's answers end early and every verdict is the one the full budget gives.

The fixed set: the first 48 distinct single-hop questions of leak-metrics' shipped reading labels
(built-in facts asked to SmolLM2-135M-Instruct in the default runs; question, gold answer and
aliases as labelled), greedy at the run's 24-token budget, and Probab-style seeded sampling
(4 samples at temperature 1 on the first 16). The alias judge reads only ``committed_answer``;
stopping early must leave that span, and so the verdict, as the full budget has it.
"""

from __future__ import annotations

import json
from importlib import resources

import pytest
import torch
from leak_metrics import JudgeItem, committed_answer, get_judge
from leakres_cli.models.catalog import load_model
from leakres_cli.stages.answering import answer_end_kwargs
from recover_attacks import generate

BUDGET = 24


@pytest.fixture(scope="module")
def items() -> list[dict]:
    path = resources.files("leak_metrics") / "data" / "judge_labels.jsonl"
    seen, out = set(), []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["type"] == "SH" and row["question"] not in seen:
            seen.add(row["question"])
            out.append(row)
    assert len(out) >= 48
    return out[:48]


@pytest.fixture(scope="module")
def smollm2():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    model, tokenizer, _ = load_model("smollm2-135m-instruct")
    yield model.eval(), tokenizer
    torch.set_num_threads(threads)


def verdicts(items: list[dict], responses: list[str]) -> list[bool]:
    judge = get_judge("alias")
    batch = [
        JudgeItem(str(i), it["question"], it["answer"], it["aliases"], it["options"], r)
        for i, (it, r) in enumerate(zip(items, responses, strict=True))
    ]
    return [v.correct for v in judge.judge(batch)]


def test_greedy_answers_stop_early_with_the_same_verdicts(items, smollm2):
    model, tokenizer = smollm2
    questions = [it["question"] for it in items]
    full = [r[0] for r in generate(model, tokenizer, questions, max_new_tokens=BUDGET)]
    short = [
        r[0]
        for r in generate(model, tokenizer, questions, max_new_tokens=BUDGET, **answer_end_kwargs())
    ]
    assert [committed_answer(s) for s in short] == [committed_answer(f) for f in full]
    assert verdicts(items, short) == verdicts(items, full)
    assert all(f.startswith(s) for f, s in zip(full, short, strict=True))
    shorter = sum(len(s) < len(f) for f, s in zip(full, short, strict=True))
    assert shorter >= 5, shorter  # the stop does act on real answers
    print(f"greedy: {shorter}/48 answers stopped early, verdicts equal")


def test_seeded_samples_stop_early_with_the_same_verdicts(items, smollm2):
    model, tokenizer = smollm2
    chosen = items[:16]
    questions = [it["question"] for it in chosen]
    kwargs = {"do_sample": True, "num_return_sequences": 4, "max_new_tokens": BUDGET, "seed": 0}
    full = generate(model, tokenizer, questions, **kwargs)
    short = generate(model, tokenizer, questions, **kwargs, **answer_end_kwargs())
    for j in range(4):
        f = [per[j] for per in full]
        s = [per[j] for per in short]
        assert [committed_answer(x) for x in s] == [committed_answer(x) for x in f]
        assert verdicts(chosen, s) == verdicts(chosen, f)
    pairs = [
        (f, s) for pf, ps in zip(full, short, strict=True) for f, s in zip(pf, ps, strict=True)
    ]
    assert sum(len(s) < len(f) for f, s in pairs) >= 5  # the stop does act on samples
