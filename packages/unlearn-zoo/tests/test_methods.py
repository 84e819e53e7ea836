"""End-to-end behaviour of each method on a tiny random Llama (CPU, a few steps)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import torch
from conftest import FAST, FORGET, RETAIN
from transformers import AutoModelForCausalLM
from unlearn_zoo import UnlearnError, get_unlearner, load_unlearned
from unlearn_zoo.data import PairedCollator, encode_records
from unlearn_zoo.losses import nll_loss, rmu_forget_loss
from unlearn_zoo.methods.ga import GAUnlearner
from unlearn_zoo.methods.tv import TVUnlearner


def _state(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def _changed(before: dict[str, torch.Tensor], model: torch.nn.Module) -> set[str]:
    after = model.state_dict()
    return {k for k in before if not torch.equal(before[k], after[k])}


def _nll(model: Any, tokenizer: Any, records: list[dict[str, Any]]) -> float:
    enc = encode_records(tokenizer, records, max_length=48)
    b = PairedCollator(tokenizer.pad_token_id)([{"forget": e} for e in enc])
    with torch.no_grad():
        logits = model(
            input_ids=b["forget_input_ids"], attention_mask=b["forget_attention_mask"]
        ).logits
    return nll_loss(logits, b["forget_labels"]).item()


@pytest.mark.parametrize("method", ["ga", "graddiff", "npo", "simnpo"])
def test_forget_nll_rises_and_input_model_untouched(
    method: str, tokenizer: Any, tiny_model: Any
) -> None:
    before = _state(tiny_model)
    nll0 = _nll(tiny_model, tokenizer, FORGET)
    # retain term only where it is part of the method (GradDiff): the sign test is on D_F.
    over = {
        **FAST,
        "lr": 1e-2,
        "epochs": 3.0,
        "retain_weight": 1.0 if method == "graddiff" else 0.0,
    }
    result = get_unlearner(method, **over).unlearn(
        tiny_model, tokenizer, FORGET, RETAIN, progress=False
    )
    assert _changed(before, tiny_model) == set(), "the passed model must never be modified"
    assert result.model is not tiny_model
    assert result.record["steps"] == 3 and result.record["stop_reason"] == "completed"
    assert _nll(result.model, tokenizer, FORGET) > nll0, f"{method} must raise the forget NLL"
    json.dumps(result.record)  # JSON-able
    assert result.record["config"]["lr"] == 1e-2 and result.record["method"] == method
    assert len(result.record["loss_curve"]) == 3


def test_palu_local_term_falls(tokenizer: Any, tiny_model: Any) -> None:
    """PALU's local term alone (lam = 0) flattens the reference top-K logits at span onsets."""
    before = _state(tiny_model)
    over = {**FAST, "lr": 1e-2, "epochs": 4.0, "lam": 0.0, "retain_weight": 0.0}
    res = get_unlearner("palu", **over).unlearn(
        tiny_model, tokenizer, FORGET, RETAIN, progress=False
    )
    assert _changed(before, tiny_model) == set()
    curve = res.record["loss_curve"]
    assert curve[-1]["local"] < curve[0]["local"]
    assert res.record["palu_forget_records_without_onset"] == []


def test_graddiff_retain_term_counts(tokenizer: Any, tiny_model: Any) -> None:
    """With a large retain weight the retain NLL goes down while the forget NLL goes up."""
    r0 = _nll(tiny_model, tokenizer, RETAIN)
    res = get_unlearner(
        "graddiff", **{**FAST, "lr": 1e-2, "epochs": 4.0, "retain_weight": 5.0}
    ).unlearn(tiny_model, tokenizer, FORGET, RETAIN, progress=False)
    assert _nll(res.model, tokenizer, RETAIN) < r0
    assert "retain_nll" in res.record["loss_curve"][0]


def test_rmu_steers_the_named_layer_and_trains_only_named_params(
    tokenizer: Any, tiny_model: Any
) -> None:
    before = _state(tiny_model)
    u = get_unlearner(
        "rmu",
        **{**FAST, "layer": 2, "lr": 1e-2, "epochs": 2.0, "steering_coeff": 5.0, "alpha": 10.0},
    )
    res = u.unlearn(tiny_model, tokenizer, FORGET, RETAIN, progress=False)
    expected = {f"model.layers.{i}.mlp.down_proj.weight" for i in (0, 1, 2)}
    assert set(res.record["rmu_trained_params"]) == expected
    assert _changed(before, res.model) == expected
    # The logged forget term equals an independent MSE of hidden_states[l+1] (output of layer l).
    enc = encode_records(tokenizer, FORGET, max_length=48)
    b = PairedCollator(tokenizer.pad_token_id)([{"forget": e} for e in enc])
    with torch.no_grad():
        hs = tiny_model(
            input_ids=b["forget_input_ids"],
            attention_mask=b["forget_attention_mask"],
            output_hidden_states=True,
        ).hidden_states[3]
    mask = b["forget_attention_mask"].bool().unsqueeze(-1)
    manual = (((hs - u.control) ** 2) * mask).sum() / (mask.sum() * hs.shape[-1])
    assert torch.allclose(manual, rmu_forget_loss(hs, u.control, b["forget_attention_mask"]))
    first = res.record["loss_curve"][0]
    assert abs(first["forget"] - manual.item()) < 1e-4 * max(1.0, manual.item())
    # the forget representation moved toward the control vector
    with torch.no_grad():
        hs_after = res.model(
            input_ids=b["forget_input_ids"],
            attention_mask=b["forget_attention_mask"],
            output_hidden_states=True,
        ).hidden_states[3]
    assert rmu_forget_loss(hs_after, u.control, b["forget_attention_mask"]) < manual


def test_tv_arithmetic_is_exact(tokenizer: Any, tiny_model: Any) -> None:
    captured: dict[str, torch.Tensor] = {}

    class CaptureTV(TVUnlearner):
        def post_train(self, model: torch.nn.Module, original: Any) -> torch.nn.Module:
            captured.update(_state(model))
            return super().post_train(model, original)

    theta_p = _state(tiny_model)
    res = CaptureTV(**{**FAST, "lr": 1e-2, "alpha": 4.0}).unlearn(
        tiny_model, tokenizer, FORGET, progress=False
    )
    theta_u = res.model.state_dict()
    moved = 0
    for k, p in theta_p.items():
        assert torch.allclose(theta_u[k], p - 4.0 * (captured[k] - p), atol=1e-6, rtol=0)
        moved += not torch.equal(captured[k], p)
    assert moved > 0, "the overfit phase must have changed weights"


def test_attention_shift_trains_only_adapters(
    tokenizer: Any, tiny_model: Any, tmp_path: Path
) -> None:
    before = _state(tiny_model)
    res = get_unlearner("as", **{**FAST, "lr": 1e-2, "epochs": 3.0}).unlearn(
        tiny_model, tokenizer, FORGET, RETAIN, output_dir=tmp_path, progress=False
    )
    assert res.record["as_adapter_layers"] == [1, 2] and res.record["as_kl_layers"] == [2, 3]
    # base weights identical; the adapters live outside the state dict
    assert set(res.model.state_dict()) == set(before)
    assert _changed(before, res.model) == set()
    adapters = [res.model.model.layers[i].self_attn.as_adapter for i in (1, 2)]
    assert any(a.up.weight.abs().sum() > 0 for a in adapters), "adapters must have been trained"
    ids = torch.tensor([[5, 6, 7, 8, 9]])
    with torch.no_grad():
        out_as = res.model(input_ids=ids).logits
        out_base = tiny_model(input_ids=ids).logits
    assert not torch.allclose(out_as, out_base)
    assert res.record["loss_curve"][-1]["kl_forget"] < res.record["loss_curve"][0]["kl_forget"]
    reloaded = load_unlearned(tmp_path)
    with torch.no_grad():
        assert torch.allclose(reloaded(input_ids=ids).logits, out_as, atol=1e-5)


def test_palu_requires_spans_in_answers(tokenizer: Any, tiny_model: Any) -> None:
    no_spans = [
        {"question": "Who wrote Hamlet?", "answer": "William Shakespeare", "spans": ["Hamlet"]}
    ]
    with pytest.raises(UnlearnError, match="no forget record has a span inside its answer"):
        get_unlearner("palu", **FAST).unlearn(
            tiny_model, tokenizer, no_spans, RETAIN, progress=False
        )


def test_bad_inputs_are_named(tokenizer: Any, tiny_model: Any) -> None:
    u = get_unlearner("ga", **FAST)
    with pytest.raises(UnlearnError, match="forget set is empty"):
        u.unlearn(tiny_model, tokenizer, [], progress=False)
    bad = [FORGET[0], {"question": "Q?", "answer": "   ", "spans": []}]
    with pytest.raises(UnlearnError, match=r"forget\[1\]\.answer tokenizes to no tokens"):
        u.unlearn(tiny_model, tokenizer, bad, progress=False)
    with pytest.raises(UnlearnError, match=r"retain\[0\]\.question"):
        get_unlearner("graddiff", **FAST).unlearn(
            tiny_model, tokenizer, FORGET, [{"answer": "x"}], progress=False
        )
    with pytest.raises(UnlearnError, match="needs a non-empty retain set"):
        get_unlearner("graddiff", **FAST).unlearn(tiny_model, tokenizer, FORGET, progress=False)
    with pytest.raises(UnlearnError, match="does not support use_lora"):
        get_unlearner("as", use_lora=True).unlearn(tiny_model, tokenizer, FORGET, progress=False)


def test_nan_loss_stops_and_keeps_last_good_state(tokenizer: Any, tiny_model: Any) -> None:
    class NaNAtStep2(GAUnlearner):
        def loss(self, model: Any, batch: dict[str, torch.Tensor]) -> Any:
            loss, parts = super().loss(model, batch)
            self.calls = getattr(self, "calls", 0) + 1
            return (loss * float("nan"), parts) if self.calls == 3 else (loss, parts)

    over = {**FAST, "lr": 1e-2, "epochs": 5.0}
    res = NaNAtStep2(**over).unlearn(tiny_model, tokenizer, FORGET, progress=False)
    assert res.record["stop_reason"] == "non_finite_loss"
    assert "restored the weights from step 1" in res.record["stop_message"]
    assert res.record["steps"] == 2
    # last good state = the weights after 1 update (step 1 had a finite loss; step 2's did not)
    ref = get_unlearner("ga", **{**over, "max_steps": 1}).unlearn(
        tiny_model, tokenizer, FORGET, progress=False
    )
    for k, v in ref.model.state_dict().items():
        assert torch.allclose(res.model.state_dict()[k], v, atol=1e-7), k
    assert all(torch.isfinite(p).all() for p in res.model.parameters())


def test_loss_bound_stops_before_any_update(tokenizer: Any, tiny_model: Any) -> None:
    before = _state(tiny_model)
    res = get_unlearner("ga", **{**FAST, "loss_bound": 1e-3}).unlearn(
        tiny_model, tokenizer, FORGET, progress=False
    )
    assert res.record["stop_reason"] == "loss_bound_exceeded"
    assert _changed(before, res.model) == set()


def test_lora_merged_is_plain_model_and_saved_loadable(
    tokenizer: Any, tiny_model: Any, tmp_path: Path
) -> None:
    before = _state(tiny_model)
    res = get_unlearner(
        "npo",
        **{
            **FAST,
            "lr": 1e-2,
            "use_lora": True,
            "lora_r": 4,
            "lora_target_modules": ["q_proj", "v_proj"],
        },
    ).unlearn(tiny_model, tokenizer, FORGET, output_dir=tmp_path, progress=False)
    assert type(res.model) is type(tiny_model), "merged LoRA must give a plain transformers model"
    changed = _changed(before, res.model)
    assert changed and all("q_proj" in k or "v_proj" in k for k in changed)
    assert res.record["n_trainable_params"] < res.record["n_params"] / 10
    assert (tmp_path / "model.safetensors").exists()
    record = json.loads((tmp_path / "unlearn_record.json").read_text())
    assert record["method"] == "npo" and record["config"]["use_lora"] is True
    loaded = AutoModelForCausalLM.from_pretrained(tmp_path)
    ids = torch.tensor([[3, 4, 5, 6]])
    with torch.no_grad():
        assert torch.allclose(
            loaded(input_ids=ids).logits, res.model(input_ids=ids).logits, atol=1e-5
        )
    gen = res.model.generate(
        ids, max_new_tokens=3, min_new_tokens=3, do_sample=False, pad_token_id=0
    )
    assert gen.shape == (1, 7)


def test_lora_unmerged_saves_adapter(tokenizer: Any, tiny_model: Any, tmp_path: Path) -> None:
    tiny_model.save_pretrained(tmp_path / "base")
    base = AutoModelForCausalLM.from_pretrained(tmp_path / "base")  # records its path for peft
    out = tmp_path / "out"
    over = {**FAST, "lr": 1e-2, "use_lora": True, "merge_lora": False, "lora_r": 2}
    res = get_unlearner("ga", **over).unlearn(
        base, tokenizer, FORGET, output_dir=out, progress=False
    )
    assert (out / "adapter_config.json").exists() and not (out / "model.safetensors").exists()
    assert hasattr(res.model, "peft_config")
    reloaded = load_unlearned(out)
    ids = torch.tensor([[3, 4, 5, 6]])
    with torch.no_grad():
        expected = res.model(input_ids=ids).logits
        assert torch.allclose(reloaded(input_ids=ids).logits, expected, atol=1e-5)


def test_same_seed_same_numbers(tokenizer: Any, tiny_model: Any) -> None:
    runs = [
        get_unlearner("simnpo", **{**FAST, "lr": 1e-2, "seed": 3}).unlearn(
            tiny_model, tokenizer, FORGET, progress=False
        )
        for _ in range(2)
    ]
    assert [c["loss"] for c in runs[0].record["loss_curve"]] == [
        c["loss"] for c in runs[1].record["loss_curve"]
    ]


def test_tv_overfit_loss_is_the_completion_nll(tokenizer: Any, tiny_model: Any) -> None:
    """TV's SFT step computes the plain answer-token NLL (transformers' loss on TRL's completion
    labels), the same number as :func:`nll_loss` on the batch, before any update."""
    expected = _nll(tiny_model, tokenizer, FORGET)
    res = get_unlearner("tv", **{**FAST, "epochs": 1.0, "lr": 1e-3}).unlearn(
        tiny_model, tokenizer, FORGET, progress=False
    )
    first = res.record["loss_curve"][0]
    assert first["overfit_nll"] == pytest.approx(expected, rel=1e-4)
