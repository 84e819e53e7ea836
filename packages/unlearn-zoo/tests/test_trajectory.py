"""Unlearning trajectories (unlearn_zoo.trajectory): the callback fires at steps K, 2K, ...; the
model is evaluated in eval mode without gradients and every module's mode comes back; a run with
the callback ends with exactly the weights of the same run without it (the evaluation draws and
reseeds random numbers on purpose; a control shows the same draws without the saved state do
change the weights); TV's checkpoint is its negated model. Tiny random Llama, CPU."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
import torch
from conftest import FORGET, RETAIN
from transformers import TrainerCallback
from unlearn_zoo import TrajectoryCallback, get_unlearner

# batch 1 over the two forget records: two optimizer steps per epoch
SIX_STEPS = {"epochs": 3.0, "batch_size": 1, "max_length": 48, "lr": 1e-2}
LORA = {"use_lora": True, "lora_r": 4, "lora_dropout": 0.3, "lora_target_modules": ["q_proj", "v_proj"]}  # fmt: skip


def _noisy_evaluate(model: Any, step: int) -> dict[str, Any]:
    """An evaluation that reseeds and draws from every global random stream, then generates."""
    torch.manual_seed(1234 + step)
    random.seed(step)
    np.random.seed(step)
    draws = [float(torch.rand(1)), random.random(), float(np.random.rand())]
    ids = torch.tensor([[1, 2, 3]])
    out = model.generate(input_ids=ids, max_new_tokens=3, do_sample=True, pad_token_id=0)
    return {"draws": draws, "n_tokens": int(out.shape[1])}


def _params(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def _run(method: str, model: Any, tokenizer: Any, callbacks=(), **over: Any) -> Any:
    unlearner = get_unlearner(method, **{**SIX_STEPS, **over})
    return unlearner.unlearn(model, tokenizer, FORGET, RETAIN, progress=False, callbacks=callbacks)


def test_fires_every_k_steps_with_the_step_losses(tiny_model: Any, tokenizer: Any) -> None:
    seen: list[int] = []
    callback = TrajectoryCallback(2, lambda model, step: {"seen": seen.append(step) or step})
    result = _run("graddiff", tiny_model, tokenizer, [callback], retain_weight=1.0)

    assert result.record["steps"] == 6
    assert seen == [2, 4, 6] == [p["step"] for p in callback.checkpoints]
    assert [p["metrics"] for p in callback.checkpoints] == [{"seen": 2}, {"seen": 4}, {"seen": 6}]
    by_step: dict[int, list[dict]] = {}
    for entry in result.record["loss_curve"]:  # step k-1 holds optimizer step k's micro-batch
        by_step.setdefault(entry["step"] + 1, []).append(entry)
    for point in callback.checkpoints:
        k = point["step"]
        assert point["loss"] == pytest.approx(by_step[k][0]["loss"])
        window = [by_step[s][0]["loss"] for s in (k - 1, k)]
        assert point["loss_mean"] == pytest.approx(sum(window) / 2)
        # the method's named terms at that step: GradDiff's forget term alone, and the retain NLL
        assert set(point["loss_parts"]) == set(by_step[k][0]) - {"step", "loss"}
        assert point["loss_parts"]["retain_nll"] == pytest.approx(by_step[k][0]["retain_nll"])
        assert point["eval_time_s"] >= 0


def test_at_start_adds_step_zero_and_plain_trainer_losses_come_from_the_log(
    tiny_model: Any, tokenizer: Any
) -> None:
    class Unbound(TrajectoryCallback):  # as on a plain Trainer: no loss curve, no method view
        def bind(self, loss_curve: Any, view: Any) -> None:
            super().bind(None, None)

    callback = Unbound(3, lambda model, step: {}, at_start=True)
    result = _run("ga", tiny_model, tokenizer, [callback])
    assert [p["step"] for p in callback.checkpoints] == [0, 3, 6]
    assert callback.checkpoints[0]["loss"] is None  # nothing trained at step 0
    curve = [e["loss"] for e in result.record["loss_curve"]]
    for point in callback.checkpoints[1:]:
        k = point["step"]
        assert point["loss"] == pytest.approx(curve[k - 1], abs=1e-3)  # the trainer's logged value
        assert point["loss_mean"] == pytest.approx(sum(curve[k - 3 : k]) / 3, abs=1e-3)


ALL_METHODS = [("ga", LORA), ("npo", {}), ("tv", {"epochs": 1.0}), ("tv", {**LORA, "epochs": 1.0}),
               ("graddiff", {}), ("simnpo", {}), ("rmu", {}), ("palu", {}), ("as", {})]  # fmt: skip


@pytest.mark.parametrize(("method", "over"), ALL_METHODS)
def test_final_weights_are_identical_with_and_without_the_callback(
    method: str, over: dict, tiny_model: Any, tokenizer: Any
) -> None:
    without = _params(_run(method, tiny_model, tokenizer, **over).model)
    callback = TrajectoryCallback(1, _noisy_evaluate, at_start=True)
    with_cb = _params(_run(method, tiny_model, tokenizer, [callback], **over).model)

    assert len(callback.checkpoints) >= 2
    assert with_cb.keys() == without.keys()
    differ = [k for k in without if not torch.equal(without[k], with_cb[k])]
    assert differ == [], f"{method}: the evaluations changed the trained weights: {differ[:3]}"


def test_control_the_same_draws_without_restoring_the_state_change_the_weights(
    tiny_model: Any, tokenizer: Any
) -> None:
    """The identity test above can fail: LoRA dropout draws from the global stream, so an
    evaluation that reseeds it, when its state is not restored, changes the run."""

    class Careless(TrainerCallback):
        def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            with torch.no_grad():
                _noisy_evaluate(kwargs["model"], state.global_step)

    without = _params(_run("ga", tiny_model, tokenizer, **LORA).model)
    careless = _params(_run("ga", tiny_model, tokenizer, [Careless()], **LORA).model)
    assert any(not torch.equal(without[k], careless[k]) for k in without)


def test_eval_mode_and_no_grad_inside_and_every_module_mode_restored(
    tiny_model: Any, tokenizer: Any
) -> None:
    inside: list[tuple[bool, bool, bool]] = []

    def evaluate(model: Any, step: int) -> dict:
        modes = [m.training for m in model.modules()]
        inside.append((any(modes), torch.is_grad_enabled(), model.training))
        return {}

    class Snapshot(TrainerCallback):
        """Each module's mode just before and just after the trajectory callback runs."""

        def __init__(self, into: list) -> None:
            self.into = into

        def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            self.into.append({id(m): m.training for m in kwargs["model"].modules()})

    before: list[dict] = []
    after: list[dict] = []
    callbacks = [Snapshot(before), TrajectoryCallback(2, evaluate), Snapshot(after)]
    _run("npo", tiny_model, tokenizer, callbacks, **LORA)

    assert inside == [(False, False, False)] * 3
    assert before == after and len(before) == 6
    assert any(before[0].values()), "the training model was in train mode before the callback"


def test_tv_checkpoint_is_the_negated_model_and_the_last_one_is_the_result(
    tiny_model: Any, tokenizer: Any
) -> None:
    """TV trains theta_over; the trajectory evaluates theta_p - alpha * (theta_k - theta_p)."""
    snapshots: dict[int, dict[str, torch.Tensor]] = {}

    def evaluate(model: Any, step: int) -> dict:
        snapshots[step] = {k: v.detach().clone() for k, v in model.named_parameters()}
        return {}

    callback = TrajectoryCallback(1, evaluate, at_start=True)
    result = _run("tv", tiny_model, tokenizer, [callback], epochs=1.0, alpha=2.0)
    final = dict(result.model.named_parameters())
    last = snapshots[max(snapshots)]
    assert all(torch.equal(last[k], final[k]) for k in final)  # the last checkpoint = the result
    base = dict(tiny_model.named_parameters())
    assert all(torch.equal(snapshots[0][k], base[k]) for k in base)  # step 0: theta_p
    assert any(not torch.equal(snapshots[1][k], base[k]) for k in base)


def test_every_must_be_a_positive_integer() -> None:
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="positive integer"):
            TrajectoryCallback(bad, lambda model, step: {})  # type: ignore[arg-type]


def test_tv_lora_checkpoint_is_the_negated_adapter(tiny_model: Any, tokenizer: Any) -> None:
    """With LoRA, TV's checkpoint scales each adapter by -alpha: its last checkpoint answers
    like the merged, negated result (up to the merge's float rounding), step 0 like theta_p."""
    ids = torch.tensor([[5, 9, 14, 3, 7]])
    logits: dict[int, torch.Tensor] = {}

    def evaluate(model: Any, step: int) -> dict:
        logits[step] = model(input_ids=ids).logits.detach().clone()
        return {}

    callback = TrajectoryCallback(1, evaluate, at_start=True)
    result = _run("tv", tiny_model, tokenizer, [callback], **{**LORA, "epochs": 1.0, "alpha": 2.0})
    with torch.no_grad():
        final, base = result.model(input_ids=ids).logits, tiny_model(input_ids=ids).logits
    assert torch.allclose(logits[max(logits)], final, atol=1e-5)
    assert torch.allclose(logits[0], base, atol=1e-6)
    assert not torch.allclose(logits[max(logits)], base, atol=1e-3)  # training moved it
