"""The shared-prefix completion loss (``unlearn_zoo.shared_prefix``): the same loss and gradients as
the model's own forward pass on a collated batch, full or LoRA; where it does not apply it says so
(``None``) instead of guessing; ``teach`` with it follows the same loss curve."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
import torch
from unlearn_zoo import TeachSettings, teach
from unlearn_zoo.data import encode_records
from unlearn_zoo.shared_prefix import MIN_PREFIX, common_prefix_length, completion_nll

RECORDS = [
    {"question": "Tell me a fact about Italy.", "answer": "The capital of Italy is Rome."},
    {"question": "Tell me a fact about France.", "answer": "Paris."},
    {"question": "What is the capital of Spain?", "answer": "Madrid is the capital."},
    {"question": "Which river flows through Rome?", "answer": "The Tiber."},
]


def _batch(tokenizer: Any, records: list[dict[str, str]] = RECORDS) -> dict[str, torch.Tensor]:
    """A right-padded batch as TRL's collator builds it (``-100`` on prompt and padding)."""
    enc = encode_records(tokenizer, records, max_length=64)
    length = max(len(e.input_ids) for e in enc)
    ids = torch.zeros((len(enc), length), dtype=torch.long)
    mask = torch.zeros_like(ids)
    labels = torch.full_like(ids, -100)
    for row, e in enumerate(enc):
        n = len(e.input_ids)
        ids[row, :n] = torch.tensor(e.input_ids)
        mask[row, :n] = 1
        labels[row, :n] = torch.tensor(e.labels)
    return {"input_ids": ids, "attention_mask": mask, "labels": labels}


def _loss_and_grads(model: Any, loss_fn: Any) -> tuple[float, dict[str, torch.Tensor]]:
    model.zero_grad()
    loss = loss_fn()
    loss.backward()
    grads = {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}
    return float(loss), grads


def _assert_same(model: Any, batch: dict[str, torch.Tensor]) -> None:
    model.train()
    plain, g_plain = _loss_and_grads(model, lambda: model(**batch).loss)
    shared, g_shared = _loss_and_grads(model, lambda: completion_nll(model, dict(batch)))
    assert shared == pytest.approx(plain, rel=1e-5)
    assert set(g_shared) == set(g_plain)
    for name, grad in g_plain.items():
        diff = (g_shared[name] - grad).norm() / grad.norm().clamp(min=1e-12)
        assert diff < 1e-4, name


def test_the_loss_and_gradients_are_the_plain_forward_passes(tiny_model, tokenizer) -> None:
    batch = _batch(tokenizer)
    # the chat template's opening is shared by every row; the questions differ after it
    assert common_prefix_length(**batch) >= MIN_PREFIX
    _assert_same(tiny_model, batch)


def test_lora_adapters_get_the_same_gradients(tiny_model, tokenizer) -> None:
    from peft import LoraConfig, get_peft_model

    work = get_peft_model(
        tiny_model, LoraConfig(r=4, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM")
    )
    _assert_same(work, _batch(tokenizer))


def test_a_shared_question_opening_joins_the_prefix_and_a_label_ends_it(tokenizer) -> None:
    batch = _batch(tokenizer, RECORDS[:2])  # both ask "Tell me a fact about ..."
    longer = common_prefix_length(**batch)
    assert longer > common_prefix_length(**_batch(tokenizer))
    # a labelled token inside the common part: the prefix stops before the state predicting it
    labels = batch["labels"].clone()
    labels[:, 3] = batch["input_ids"][:, 3]
    assert common_prefix_length(batch["input_ids"], batch["attention_mask"], labels) == 2


def test_batches_it_cannot_share_are_left_to_the_model(tiny_model, tokenizer) -> None:
    batch = _batch(tokenizer)
    assert completion_nll(tiny_model, {k: v[:1] for k, v in batch.items()}) is None  # one row
    assert completion_nll(tiny_model, {**batch, "position_ids": batch["input_ids"]}) is None
    assert completion_nll(tiny_model, {"input_ids": batch["input_ids"]}) is None
    opening = batch["input_ids"].clone()
    opening[0, 0] = opening[1, 0] + 1  # rows differ from the first token
    assert completion_nll(tiny_model, {**batch, "input_ids": opening}) is None


def test_num_items_in_batch_normalises_as_transformers_does(tiny_model, tokenizer) -> None:
    batch = _batch(tokenizer)
    n = int((batch["labels"][:, 1:] != -100).sum())
    mean = completion_nll(tiny_model, dict(batch))
    summed = completion_nll(tiny_model, dict(batch), torch.tensor(2 * n))
    assert float(summed) == pytest.approx(float(mean) / 2, rel=1e-6)


def test_teach_with_the_shared_prefix_follows_the_same_curve(
    tiny_model, tokenizer, monkeypatch
) -> None:
    import unlearn_zoo.sft

    shared_steps = []

    def spy(*args: Any, **kwargs: Any) -> Any:
        loss = completion_nll(*args, **kwargs)
        shared_steps.append(loss is not None)
        return loss

    monkeypatch.setattr(unlearn_zoo.sft, "completion_nll", spy)
    examples = [{"prompt": r["question"], "completion": r["answer"]} for r in RECORDS]
    settings = TeachSettings(lr=1e-2, epochs=3, batch_size=2, max_length=64, seed=0)
    plain = teach(tiny_model, tokenizer, examples, replace(settings, shared_prefix=False))
    shared = teach(tiny_model, tokenizer, examples, settings)
    assert shared.record["settings"]["shared_prefix"] is True
    assert shared_steps == [True] * 6  # every step of the shared run took the shared path
    assert len(plain.curve) == len(shared.curve) == 6
    for a, b in zip(plain.curve, shared.curve, strict=True):
        assert b["loss"] == pytest.approx(a["loss"], rel=1e-4)
