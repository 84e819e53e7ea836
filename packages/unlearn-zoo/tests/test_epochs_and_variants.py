"""Training is sized by epochs over the forget set; the record says what training saw and which
objective ran (issue: every forget fact is unlearned; paper-faithful NPO/PALU by default)."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import FAST, FORGET, RETAIN, make_tiny_model
from unlearn_zoo import default_overrides, get_unlearner, list_unlearners
from unlearn_zoo.defaults import DEFAULTS

ALL = list_unlearners()[:8]


def facts(n: int) -> list[dict[str, Any]]:
    return [
        {
            "question": f"What is the code of item {i}?",
            "answer": f"Code {i}",
            "spans": [f"item {i}", f"Code {i}"],
        }
        for i in range(n)
    ]


def run_defaults(method: str, n_forget: int, tokenizer: Any) -> dict[str, Any]:
    model = make_tiny_model(len(tokenizer), layers=4)
    n_params = sum(p.numel() for p in model.parameters())
    over = default_overrides(method, n_params)  # the small tier, as the CLI picks it
    retain = [] if method == "tv" else facts(n_forget + 3)[n_forget:]
    # Sizing (epochs, batch, cap) is the defaults'; a tiny lr only keeps a random tiny model's
    # losses inside the loss guard, so no run stops early for reasons unrelated to sizing.
    u = get_unlearner(method, **{**over, "lr": 1e-6})
    return u.unlearn(model, tokenizer, facts(n_forget), retain, progress=False).record


@pytest.mark.parametrize("n_forget", [1, 7, 100])
@pytest.mark.parametrize(
    "method", ["ga", "tv"]
)  # the two trainers: transformers.Trainer, TRL SFTTrainer
def test_defaults_see_every_forget_example(method: str, n_forget: int, tokenizer: Any) -> None:
    rec = run_defaults(method, n_forget, tokenizer)
    assert rec["forget_examples_seen"] == n_forget, rec["forget_examples_seen"]
    assert rec["cap_hit"] is False and rec["stop_reason"] == "completed"
    epochs = rec["config"]["epochs"]
    assert rec["epochs_completed"] == pytest.approx(epochs)
    batch = rec["config"]["batch_size"]
    assert rec["steps"] == rec["planned_steps"] == int(epochs) * -(-n_forget // batch)


@pytest.mark.parametrize("method", ALL)
def test_every_method_default_sees_every_forget_example(method: str, tokenizer: Any) -> None:
    rec = run_defaults(method, 7, tokenizer)
    assert rec["forget_examples_seen"] == 7 and rec["cap_hit"] is False
    assert rec["epochs_completed"] >= 1


TUNED_TO_ONE_EPOCH = {("small", "ga"), ("small", "npo")}


def test_no_shipped_default_caps_steps() -> None:
    for tier, table in DEFAULTS.items():
        for method, over in table.items():
            assert over.get("max_steps") is None, f"{tier}/{method} caps steps"
            # The paper's 2-5 epochs, except where `leakres tune` chose 1 at the default run's size
            # (48 forget facts, 12 steps per epoch): small-tier GA and NPO.
            low = 1 if (tier, method) in TUNED_TO_ONE_EPOCH else 2
            assert low <= over["epochs"] <= 5, f"{tier}/{method}: epochs outside {low}-5"


def test_max_steps_is_a_cap_and_reported(tokenizer: Any, tiny_model: Any) -> None:
    rec = (
        get_unlearner("ga", **{**FAST, "epochs": 3.0, "batch_size": 1, "max_steps": 4})
        .unlearn(tiny_model, tokenizer, FORGET, progress=False)
        .record
    )
    # 3 epochs x 2 batches = 6 planned steps; the cap stopped at 4 (2 epochs, both examples seen)
    assert (rec["steps"], rec["planned_steps"], rec["cap_hit"]) == (4, 6, True)
    assert rec["epochs_completed"] == pytest.approx(2.0)
    assert rec["forget_examples_seen"] == 2
    rec = (
        get_unlearner("ga", **{**FAST, "epochs": 3.0, "batch_size": 1, "max_steps": 1})
        .unlearn(tiny_model, tokenizer, FORGET, progress=False)
        .record
    )
    assert (rec["steps"], rec["cap_hit"], rec["forget_examples_seen"]) == (1, True, 1)
    rec = (
        get_unlearner("ga", **{**FAST, "max_steps": 50})
        .unlearn(tiny_model, tokenizer, FORGET, progress=False)
        .record
    )
    assert (rec["steps"], rec["cap_hit"]) == (2, False), "a cap above the epoch budget adds nothing"


@pytest.mark.parametrize(
    ("method", "over", "variant"),
    [
        ("ga", {}, "ga"),
        ("ga", {"retain_weight": 0.5}, "ga+retain_nll(w=0.5)"),
        ("graddiff", {}, "graddiff"),
        ("graddiff", {"retain_weight": 2.0}, "graddiff(retain_weight=2.0)"),
        ("npo", {}, "npo"),
        ("npo", {"retain_weight": 1.0}, "npo+retain_nll(w=1.0)"),
        ("simnpo", {"retain_weight": 1.0}, "simnpo+retain_nll(w=1.0)"),
        ("rmu", {}, "rmu"),
        ("rmu", {"retain_weight": 0.0}, "rmu(retain_weight=0.0)"),
        ("tv", {}, "tv"),
        ("palu", {}, "palu"),
        ("palu", {"retain_weight": 1.0}, "palu+retain_nll(w=1.0)"),
        ("as", {}, "as"),
    ],
)
def test_variant_names_the_objective(method: str, over: dict[str, Any], variant: str) -> None:
    assert get_unlearner(method, **over).variant() == variant


@pytest.mark.parametrize("n_params", [135_000_000, 7_000_000_000, 70_000_000_000])
@pytest.mark.parametrize("method", ["npo", "palu"])
def test_npo_palu_defaults_are_the_papers(method: str, n_params: int) -> None:
    u = get_unlearner(method, **default_overrides(method, n_params))
    assert u.config.retain_weight == 0.0 and u.variant() == method


def test_paper_npo_and_palu_have_no_retain_term(tokenizer: Any, tiny_model: Any) -> None:
    """Eq. 4 and eq. 7: the logged loss is the forget objective alone; retain data is unused."""
    npo = get_unlearner("npo", **FAST, lr=1e-2).unlearn(
        tiny_model, tokenizer, FORGET, RETAIN, progress=False
    )
    assert npo.record["variant"] == "npo" and npo.record["n_retain"] == 0
    for e in npo.record["loss_curve"]:
        assert set(e) == {"step", "loss", "forget", "log_ratio"} and e["loss"] == e["forget"]
    palu = get_unlearner("palu", **FAST, lr=1e-2, lam=2.0).unlearn(
        tiny_model, tokenizer, FORGET, RETAIN, progress=False
    )
    assert palu.record["variant"] == "palu"
    for e in palu.record["loss_curve"]:
        assert set(e) == {"step", "loss", "local", "kl"}
        assert e["loss"] == pytest.approx(e["local"] + 2.0 * e["kl"], rel=1e-6)


def test_palu_retain_variant_sits_inside_lambda(tokenizer: Any, tiny_model: Any) -> None:
    res = get_unlearner("palu", **FAST, lr=1e-2, lam=2.0, retain_weight=0.5).unlearn(
        tiny_model, tokenizer, FORGET, RETAIN, progress=False
    )
    for e in res.record["loss_curve"]:
        expected = e["local"] + 2.0 * (e["kl"] + 0.5 * e["retain_nll"])
        assert e["loss"] == pytest.approx(expected, rel=1e-6)
