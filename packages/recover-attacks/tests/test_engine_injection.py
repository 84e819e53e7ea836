"""Attacks decode through an injected engine (``Attack.run(..., engine=...)``), no CLI involved.

A recording engine implements the :class:`~recover_attacks.engine.Engine` interface: it keeps
every prompt and config it is asked to decode and answers with a text that names the prompt, so
a test sees exactly what reached the engine and that the attack's responses came from it.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from recover_attacks import get_attack
from recover_attacks.engine import DecodingConfig, Engine
from recover_attacks.errors import ConfigError
from recover_attacks.generation import format_prompt


class RecordingEngine(Engine):
    name = "recording"

    def __init__(self, tokenizer) -> None:
        super().__init__()
        self.tokenizer = tokenizer
        self.calls: list[tuple[list[str], DecodingConfig]] = []

    def format_prompt(self, question: str) -> str:
        return format_prompt(self.tokenizer, question)

    def complete(
        self, prompts: Sequence[str], config: DecodingConfig, *, progress: bool = False
    ) -> list[list[str]]:
        self.calls.append((list(prompts), config))
        return [
            [f" answer {i}.{j} " for j in range(config.num_samples)] for i in range(len(prompts))
        ]


def _no_forward(model, monkeypatch):
    """The attacked model must not decode itself while an engine is injected."""

    def refuse(*args, **kwargs):
        raise AssertionError("the attacked model ran a forward pass; the engine should decode")

    monkeypatch.setattr(model, "forward", refuse)


def test_probab_samples_come_from_the_injected_engine(model, tokenizer, questions, monkeypatch):
    engine = RecordingEngine(tokenizer)
    _no_forward(model, monkeypatch)
    results = get_attack("probab", max_new_tokens=6, seed=3).run(
        model, tokenizer, questions, progress=False, engine=engine
    )
    assert len(engine.calls) == 1  # one batched call, never one prompt at a time
    prompts, config = engine.calls[0]
    assert prompts == [format_prompt(tokenizer, q["question"]) for q in questions]
    assert (config.do_sample, config.temperature, config.top_p, config.num_samples) == (
        True,
        0.8,
        0.95,
        5,
    )
    assert (config.max_new_tokens, config.seed) == (6, 3)
    assert [r.id for r in results] == [q["id"] for q in questions]
    assert results[1].responses == [f"answer 1.{j}" for j in range(5)]  # stripped like generate
    assert results[0].settings["engine"] == {"engine": "recording"}


def test_focus_on_key_decodes_its_prompts_through_the_engine(
    model, original_model, tokenizer, questions, monkeypatch
):
    """The key-token search runs on theta_p in-process; only the final greedy decoding of the
    attacked model goes to the engine, with the emphasised prompts."""
    engine = RecordingEngine(tokenizer)
    _no_forward(model, monkeypatch)
    results = get_attack("focus_on_key", max_new_tokens=5).run(
        model, tokenizer, questions, progress=False, original_model=original_model, engine=engine
    )
    ((prompts, config),) = engine.calls
    assert not config.do_sample and config.num_samples == 1 and config.max_new_tokens == 5
    assert prompts == [format_prompt(tokenizer, r.settings["prompt"]) for r in results]
    assert [r.responses for r in results] == [[f"answer {i}.0"] for i in range(len(questions))]


def test_in_context_sends_its_formatted_prompts(model, tokenizer, questions, monkeypatch):
    engine = RecordingEngine(tokenizer)
    _no_forward(model, monkeypatch)
    facts = [("Who wrote Hamlet?", "Shakespeare")]
    results = get_attack("in_context", max_new_tokens=4).run(
        model, tokenizer, questions, progress=False, context_facts=facts, engine=engine
    )
    ((prompts, _),) = engine.calls
    assert prompts == [r.settings["prompt"] for r in results]  # already formatted: sent as is


def test_without_an_engine_the_attack_decodes_in_process(model, tokenizer, questions):
    """No engine injected: the same results as before the engine became injectable, and the
    injected engine of an earlier run does not leak into the next one."""
    engine = RecordingEngine(tokenizer)
    attack = get_attack("probab", max_new_tokens=4, seed=1)
    attack.run(model, tokenizer, questions, progress=False, engine=engine)
    assert attack.engine is None
    plain = attack.run(model, tokenizer, questions, progress=False)
    assert "engine" not in plain[0].settings
    assert not any(r.responses[0].startswith("answer ") for r in plain)


@pytest.mark.parametrize("name", ["quantization", "relearn"])
def test_an_attack_that_changes_weights_refuses_an_engine(name, model, tokenizer, questions):
    with pytest.raises(ConfigError, match="takes no engine"):
        get_attack(name).run(
            model, tokenizer, questions, progress=False, engine=RecordingEngine(tokenizer)
        )


def test_the_attacked_model_may_be_a_handle_the_engine_serves(tokenizer, questions):
    """A model known only by its endpoint (leakres' black-box ``RemoteModel``) is an object the
    engine stands for: an attack that only decodes never touches it."""

    class Handle:
        pass

    engine = RecordingEngine(tokenizer)
    results = get_attack("probab", max_new_tokens=3).run(
        Handle(), tokenizer, questions, progress=False, engine=engine
    )
    assert len(engine.calls) == 1 and len(results) == len(questions)
