"""relearn on TRL's SFTTrainer gives the same per-step losses as the hand-written LoRA loop it
replaced, on the same data (recorded by tests/relearn_loss_case.py at commit 68f4bff, not edited)."""

from __future__ import annotations

import json
import math

import pytest
import torch
from relearn_loss_case import FIXTURE, PAIRS, SETTINGS, run_case


def test_relearn_losses_equal_to_recorded() -> None:
    recorded = json.loads(FIXTURE.read_text())
    assert recorded["settings"] == SETTINGS
    now = run_case()
    assert len(now) == len(recorded["losses"]) == SETTINGS["steps"]
    for step, (old, new) in enumerate(zip(recorded["losses"], now, strict=True)):
        assert math.isclose(new, old, rel_tol=2e-5), f"step {step}: recorded {old}, now {new}"


def test_relearn_trains_answer_tokens_only_and_leaves_caller_objects_alone(
    model, tokenizer
) -> None:
    from recover_attacks.attacks.relearn import RelearnConfig, relearn_dataset, relearn_lora

    rows = relearn_dataset(tokenizer, PAIRS)
    for row, (q, a) in zip(rows, PAIRS, strict=True):
        prompt = tokenizer.apply_chat_template(
            [{"role": "user", "content": q}], add_generation_prompt=True, tokenize=False
        )
        answer_ids = [i for i, m in zip(row["input_ids"], row["completion_mask"], strict=True) if m]
        a_ids = tokenizer(a, add_special_tokens=False)["input_ids"]
        assert answer_ids == [*a_ids, tokenizer.eos_token_id]
        prompt_ids = [
            i for i, m in zip(row["input_ids"], row["completion_mask"], strict=True) if not m
        ]
        assert prompt_ids == tokenizer(prompt, add_special_tokens=False)["input_ids"]
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    pad_before = tokenizer.pad_token
    peft_model, losses = relearn_lora(model, tokenizer, PAIRS, RelearnConfig(steps=2))
    assert len(losses) == 2 and all(math.isfinite(x) for x in losses)
    assert tokenizer.pad_token == pad_before
    assert all(torch.equal(p, before[n]) for n, p in model.named_parameters())
    assert "forward" not in vars(peft_model.get_base_model()), "TRL's fused-head patch removed"
    assert any("lora_" in n for n, _ in peft_model.named_parameters())


@pytest.mark.parametrize("steps", [1, 3])
def test_relearn_step_count_is_exact(model, tokenizer, steps: int) -> None:
    from recover_attacks.attacks.relearn import RelearnConfig, relearn_lora

    _, losses = relearn_lora(
        model, tokenizer, PAIRS, RelearnConfig(steps=steps, train_batch_size=1)
    )
    assert len(losses) == steps
