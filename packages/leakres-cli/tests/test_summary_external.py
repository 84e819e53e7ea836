"""How summary.md labels a model `leakres eval` was given (issue 39, item 5): what is known of it
(an endpoint is a black box, an adapter a peft adapter), never "full fine-tuning", and no training
row of unknowns ("?/5 None None") for a model with no unlearn-zoo record."""

from __future__ import annotations

from leakres_cli.outputs.summary import _training_section, training_label


def _methods(unlearn: dict) -> dict:
    return {"methods": {"ext": {"unlearn": unlearn, "training": {"n_forget": 5, "epochs": None}}}}


def test_models_trained_elsewhere_are_labelled_by_kind() -> None:
    endpoint = {"method": "external", "external": {"kind": "endpoint"}, "config": {}}
    adapter = {"method": "external", "external": {"kind": "adapter"}, "config": {"use_lora": True}}
    assert training_label(endpoint) == "black box behind an endpoint (trained elsewhere)"
    assert training_label(adapter) == "peft adapter (trained elsewhere)"
    assert training_label({"method": "ga", "config": {"use_lora": False}}) == "full fine-tuning"
    assert training_label({"method": "ga", "config": {"use_lora": True}}) == "LoRA"
    text = "\n".join(_training_section(_methods(endpoint)))
    assert "?/5" not in text and "None" not in text
    assert "- ext: black box behind an endpoint (trained elsewhere), no unlearn-zoo record" in text


def test_an_unlearn_zoo_record_keeps_its_row() -> None:
    rec = {"method": "ga", "config": {"use_lora": False}}
    data = {"methods": {"ga": {"unlearn": rec, "training": {"n_forget": 5, "forget_examples_seen": 5,
                                                            "epochs": 3, "steps": 6}}}}  # fmt: skip
    row = next(line for line in _training_section(data)[2].splitlines() if line.startswith("| ga"))
    assert [c.strip() for c in row.strip("|").split("|")][:3] == ["ga", "5/5", "3"]
