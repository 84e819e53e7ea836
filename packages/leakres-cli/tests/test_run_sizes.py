"""Run sizes (issue 16): a widened single-hop pool, the stop before training, --allow-fewer, and
unlearning that sees every forget example at the CLI's default settings.

The pool tests use kg-qgen's real built-in knowledge base and a scripted stand-in for the base
model (``Benchmark.answer`` replaced: it answers the gold for a chosen set of facts and "I do not
know" otherwise), so which facts the model "knows" is set by the test. The training test runs
unlearn-zoo on a tiny randomly initialised Llama with a tiny trained BPE tokenizer.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from leakres_cli.config.run_config import RunConfig
from leakres_cli.errors import LeakresError
from leakres_cli.outputs.summary import render
from leakres_cli.stages.pipeline import Benchmark, training_summary

SMALL = {"types": ("SH", "HS"), "per_type": 4, "sh_pool": 6, "methods": (), "attacks": ()}


class ScriptedBase:
    """Answers the gold answer for the facts in ``known`` (SH question ids) and records each call."""

    def __init__(self, known: set[str]) -> None:
        self.known = known
        self.asked: list[str] = []

    def __call__(self, bench, model, questions, desc):
        self.asked += [q["id"] for q in questions]
        return [q["answer"] if q["id"] in self.known else "I do not know." for q in questions]


def _bench(tmp_path: Path, monkeypatch, script: ScriptedBase, **cfg) -> Benchmark:
    monkeypatch.setattr(Benchmark, "model", lambda self: (object(), None))
    monkeypatch.setattr(
        Benchmark,
        "answer",
        lambda self, model, questions, desc: script(self, model, questions, desc),
    )

    def no_training(*args, **kwargs):
        raise AssertionError("training started")

    monkeypatch.setattr(Benchmark, "unlearn", no_training)
    return Benchmark(RunConfig(**{**SMALL, **cfg}), tmp_path, progress=False)


def _sh_questions(tmp_path: Path) -> tuple[list[dict], list[dict]]:
    data = Benchmark(RunConfig(**SMALL), tmp_path / "probe", progress=False).build_questions()
    pool = [q for q in data["questions"] if q["type"] == "SH"]
    return pool, data["sh_reserve"]


def test_short_pool_is_widened_to_every_fact_of_the_knowledge_base(tmp_path, monkeypatch) -> None:
    pool, reserve = _sh_questions(tmp_path)
    assert len(pool) == 6 and len(reserve) > 10
    script = ScriptedBase({pool[0]["id"], pool[1]["id"], *(q["id"] for q in reserve[:8])})
    bench = _bench(tmp_path / "run", monkeypatch, script, n_forget=3, n_retain=5)

    results = bench.run()

    asked_sh = {i for i in script.asked if i.startswith("SH")}
    assert asked_sh == {q["id"] for q in pool + reserve}  # every fact was asked
    sizes = results["sizes"]
    assert sizes["widened_to_every_fact"] is True and sizes["short"] is False
    assert sizes["n_single_hop_asked"] == len(pool) + len(reserve)
    assert (len(results["forget_facts"]), len(results["retain_facts"])) == (3, 5)
    assert render(results).splitlines()[0] == "# leakres results"


def test_too_few_known_facts_stop_before_training_then_allow_fewer_reuses_answers(
    tmp_path, monkeypatch
) -> None:
    pool, reserve = _sh_questions(tmp_path)
    known = {pool[0]["id"], reserve[0]["id"], reserve[1]["id"], reserve[2]["id"]}
    script = ScriptedBase(known)
    out = tmp_path / "run"
    bench = _bench(out, monkeypatch, script, n_forget=3, n_retain=5, methods=("ga",))

    with pytest.raises(LeakresError) as err:
        bench.run()
    message = str(err.value)
    assert "\n" not in message
    assert f"knows 4 of {len(pool) + len(reserve)} single-hop facts" in message
    assert "every fact of the knowledge base was asked" in message and "--allow-fewer" in message
    assert (out / "cells" / "base-single-hop.json").is_file()  # the answers are kept

    script.asked.clear()
    again = _bench(
        out, monkeypatch, script, n_forget=3, n_retain=5, methods=("ga",), allow_fewer=True
    )
    with pytest.raises(AssertionError, match="training started"):
        again.run()  # goes on to training now, with the stored answers
    assert not [i for i in script.asked if i.startswith("SH")]  # no SH question asked again
    base = json.loads((out / "cells" / "base.json").read_text())["payload"]
    assert base["sizes"]["short"] is True
    assert (len(base["forget_ids"]), len(base["retain_ids"])) == (2, 2)

    # The same short cells without --allow-fewer stop again instead of silently running short.
    with pytest.raises(LeakresError, match="--allow-fewer"):
        _bench(out, monkeypatch, script, n_forget=3, n_retain=5, methods=("ga",)).run()

    # results.json and summary.md of a short run (no method, so nothing trains) state both sizes.
    results = _bench(tmp_path / "short", monkeypatch, script, n_forget=3, n_retain=5,
                     allow_fewer=True).run()  # fmt: skip
    sizes = results["sizes"]
    assert sizes["short"] is True and results["run_control"] == {"allow_fewer": True}
    assert sizes["requested"] == {"n_forget": 3, "n_retain": 5}
    assert sizes["actual"] == {"n_forget": 2, "n_retain": 2}
    assert (len(results["forget_facts"]), len(results["retain_facts"])) == (2, 2)
    first = render(results).splitlines()[0]
    assert first.startswith("# leakres results (fewer facts than requested")
    assert "2 forget / 2 retain facts, requested 3 / 5" in first
    json.dumps(results)  # results.json stays JSON


# ----------------------------------------------------------------------------- training sizes
CHAT_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


@pytest.fixture(scope="module")
def tiny_model_and_tokenizer(tmp_path_factory):
    """A byte-level BPE trained here (milliseconds) with a ChatML template, and a 2-layer Llama."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    torch.set_num_threads(1)
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300,
        special_tokens=["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(["What is the capital of Country? City user assistant"], trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>"
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    torch.manual_seed(0)
    config = LlamaConfig(
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        vocab_size=len(tokenizer),
        max_position_embeddings=256,
    )
    return LlamaForCausalLM(config).eval(), tokenizer


def _facts(n: int, prefix: str) -> list[dict]:
    return [
        {
            "id": f"{prefix}{i}",
            "type": "SH",
            "question": f"What is the capital of Country{prefix}{i}?",
            "answer": f"City{prefix}{i}",
            "target": {
                "subject": f"Country{prefix}{i}",
                "relation": "capital",
                "object": f"City{i}",
            },
        }
        for i in range(n)
    ]


@pytest.mark.parametrize("method", ["ga", "npo"])
@pytest.mark.parametrize("n_forget", [1, 7, 13])
def test_every_forget_example_is_seen_under_the_default_settings(
    tmp_path, tiny_model_and_tokenizer, method: str, n_forget: int
) -> None:
    """The CLI's unlearning (unlearn-zoo's size defaults + the run seed, no --set) trains on
    every forget example; the run-size summary says so, from the unlearn record."""
    bench = Benchmark(RunConfig(methods=(method,), n_forget=n_forget), tmp_path, progress=False)
    bench._model, bench._tokenizer = tiny_model_and_tokenizer
    forget, retain = _facts(n_forget, "f"), _facts(4, "r")

    _, record = bench.unlearn(method, forget, retain)
    summary = training_summary(record, n_forget)

    assert record["forget_examples_seen"] == n_forget
    assert summary["every_forget_example_seen"] is True and summary["cap_hit"] is False
    assert summary["computed_by_cli"] == []  # unlearn-zoo's record has every field
    assert summary["steps"] == record["steps"] >= 1
    assert summary["epochs"] == record["config"]["epochs"]


def test_default_size_keeps_the_single_hop_fq_interval_within_15_points():
    """Issue 16: the default run's SH FQ 95% CI is at most +/-15 points, whatever it measures.

    The base model answers every forget fact (they are chosen that way), so SH FQ is 1 minus the
    unlearned accuracy on ``n_forget`` facts; every possible count of forgotten facts is scored
    with leak-metrics' own bootstrap at the default seed and resamples.
    """
    from leak_metrics.metrics import forget_quality
    from leakres_cli.config.run_config import RunConfig

    cfg = RunConfig()
    widest = 0.0
    for kept in range(cfg.n_forget + 1):
        unlearned = [True] * kept + [False] * (cfg.n_forget - kept)
        fq = forget_quality(
            [True] * cfg.n_forget, unlearned, seed=cfg.seed, n_resamples=cfg.bootstrap
        )
        widest = max(widest, fq.value - fq.ci_low, fq.ci_high - fq.value)
    assert widest <= 0.15, f"n_forget={cfg.n_forget}: widest half-width {widest:.4f}"
    # the figure --help states (config.RunConfig's n_forget attribute)
    assert round(widest * 100, 1) == 14.6
