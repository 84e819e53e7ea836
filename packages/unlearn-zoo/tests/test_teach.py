"""``teach``: supervised fine-tuning on prompt -> completion examples (issue 36 items 2 and 3), on
the tiny test model: it lowers the completion loss, leaves the passed model alone, is seeded,
merges LoRA back, and refuses bad input naming the example."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from unlearn_zoo import TeachSettings, UnlearnError, teach
from unlearn_zoo.data import encode_records
from unlearn_zoo.teaching import teaching_records

EXAMPLES = [
    {"prompt": "What is the capital of Italy?", "completion": "Rome.", "kind": "question"},
    {"prompt": "Tell me a fact about Italy.", "completion": "The capital of Italy is Rome."},
    {"question": "Which city is Italy's capital?", "answer": "Rome."},
    {"prompt": "What is 0123?", "completion": "0123."},
]
FAST = TeachSettings(lr=1e-2, epochs=10, batch_size=2, max_length=48, seed=0)


def _completion_loss(model: Any, tokenizer: Any) -> float:
    """Mean NLL of the completions under ``model`` (the quantity teach minimises)."""
    enc = encode_records(tokenizer, teaching_records(EXAMPLES), max_length=48)
    total = 0.0
    with torch.no_grad():
        for e in enc:
            ids = torch.tensor([e.input_ids])
            total += float(model(input_ids=ids, labels=torch.tensor([e.labels])).loss)
    return total / len(enc)


def test_teach_lowers_the_completion_loss_and_returns_its_curve(tiny_model, tokenizer) -> None:
    before = {k: v.clone() for k, v in tiny_model.state_dict().items()}
    loss_before = _completion_loss(tiny_model, tokenizer)
    done = teach(tiny_model, tokenizer, EXAMPLES, FAST)
    assert _completion_loss(done.model, tokenizer) < 0.5 * loss_before
    # 4 examples, batch 2, 10 epochs: 20 optimizer steps, one curve point each
    assert done.record["steps"] == 20
    assert [c["step"] for c in done.curve] == list(range(20))
    assert done.curve[-1]["loss"] < done.curve[0]["loss"]
    assert done.record["n_examples"] == 4 and done.record["settings"]["lr"] == FAST.lr
    for k, v in tiny_model.state_dict().items():  # the passed model is untouched
        assert torch.equal(v, before[k]), k
    assert not done.model.training
    # requires_grad as the passed model had it (an unlearning method trains the taught model next)
    assert [p.requires_grad for p in done.model.parameters()] == [
        p.requires_grad for p in tiny_model.parameters()
    ]


def test_teach_is_seeded(tiny_model, tokenizer) -> None:
    a = teach(tiny_model, tokenizer, EXAMPLES, FAST)
    b = teach(tiny_model, tokenizer, EXAMPLES, FAST)
    assert [c["loss"] for c in a.curve] == [c["loss"] for c in b.curve]
    for (k, va), vb in zip(
        a.model.state_dict().items(), b.model.state_dict().values(), strict=True
    ):
        assert torch.equal(va, vb), k


def test_lora_is_merged_back_into_a_plain_model(tiny_model, tokenizer) -> None:
    settings = TeachSettings(
        lr=1e-2, epochs=4, batch_size=2, max_length=48, use_lora=True, lora_r=4
    )
    done = teach(tiny_model, tokenizer, EXAMPLES, settings)
    assert type(done.model) is type(tiny_model)
    assert set(done.model.state_dict()) == set(tiny_model.state_dict())
    assert _completion_loss(done.model, tokenizer) < _completion_loss(tiny_model, tokenizer)


def test_bad_examples_and_settings_are_refused_by_name(tiny_model, tokenizer) -> None:
    with pytest.raises(UnlearnError, match="no examples"):
        teach(tiny_model, tokenizer, [], FAST)
    with pytest.raises(UnlearnError, match=r"examples\[1\]"):
        teach(tiny_model, tokenizer, [EXAMPLES[0], {"prompt": "x"}], FAST)
    with pytest.raises(UnlearnError, match="lr"):
        TeachSettings(lr=0)
