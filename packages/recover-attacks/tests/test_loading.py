"""Loading unlearned checkpoints (ARCHITECTURE.md section 8) by the rules of
unlearn_zoo.load_unlearned. The directories are written here in that format by hand, without
unlearn-zoo (the libraries never import each other)."""

from __future__ import annotations

import copy
import json

import pytest
import torch
from recover_attacks import ModelLoadError, get_attack
from recover_attacks.checkpoint_files import AS_ADAPTER_FILE
from recover_attacks.loading import attach_attention_shift_adapters, load_model

IDS = torch.tensor([[4, 9, 10, 11, 12, 13, 7]])


def _logits(model):
    with torch.no_grad():
        return model(input_ids=IDS).logits


def _write_full(model, tokenizer, out, method="ga"):
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    (out / "unlearn_record.json").write_text(json.dumps({"method": method, "variant": method}))


def test_full_weights_checkpoint_loads_as_saved(model, tokenizer, tmp_path):
    out = tmp_path / "ga"
    _write_full(model, tokenizer, out)
    loaded = load_model(out)
    assert torch.allclose(_logits(loaded), _logits(model), atol=1e-6)


def test_attention_shift_checkpoint_reattaches_adapters(model, tokenizer, tmp_path):
    out = tmp_path / "as"
    _write_full(model, tokenizer, out, method="as")
    from safetensors.torch import save_file

    torch.manual_seed(3)
    hidden, dim, layer = model.config.hidden_size, 8, 1
    state = {
        f"{layer}.down.weight": torch.randn(dim, hidden),
        f"{layer}.down.bias": torch.randn(dim),
        f"{layer}.up.weight": torch.randn(hidden, dim) * 0.5,
        f"{layer}.up.bias": torch.randn(hidden) * 0.1,
        f"{layer}.scale": torch.tensor(0.7),
    }
    save_file(state, str(out / AS_ADAPTER_FILE))

    loaded = load_model(out)
    assert loaded.config._attn_implementation == "eager"
    # the adapters stay outside the module tree: parameters are the base model's
    assert {n for n, _ in loaded.named_parameters()} == {n for n, _ in model.named_parameters()}

    # independent expectation: the base model with h + s * up(relu(down(h))) on layer 1's attention
    expected_model = copy.deepcopy(model)
    expected_model.set_attn_implementation("eager")

    def hook(_m, _i, out):
        h = out[0]
        a = torch.relu(h @ state["1.down.weight"].T + state["1.down.bias"])
        return (h + state["1.scale"] * (a @ state["1.up.weight"].T + state["1.up.bias"]), *out[1:])

    expected_model.model.layers[layer].self_attn.register_forward_hook(hook)
    got = _logits(loaded)
    assert torch.allclose(got, _logits(expected_model), atol=1e-5)
    assert not torch.allclose(got, _logits(model), atol=1e-3), "a plain reload would be the base"

    with pytest.raises(ModelLoadError, match="already has an Attention-Shifting adapter"):
        attach_attention_shift_adapters(loaded, out)
    # attacks given the path load it by the same rules
    results = get_attack("probab", max_new_tokens=2, num_samples=1).run(
        str(out), None, [{"id": "q", "type": "SH", "question": "what is the capital of france ?",
                          "answer": "paris"}], progress=False
    )  # fmt: skip
    assert len(results) == 1


def test_unmerged_lora_checkpoint_loads_on_its_base(model, tokenizer, tmp_path):
    from peft import LoraConfig, get_peft_model

    base_dir, out = tmp_path / "base", tmp_path / "lora"
    model.save_pretrained(base_dir)
    peft_model = get_peft_model(
        copy.deepcopy(model), LoraConfig(r=2, target_modules=["q_proj", "v_proj"])
    )
    with torch.no_grad():
        for name, p in peft_model.named_parameters():
            if "lora_B" in name:
                p.normal_(0, 0.5)
    peft_model.peft_config["default"].base_model_name_or_path = str(base_dir)
    peft_model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    assert (out / "adapter_config.json").exists() and not (out / "config.json").exists()

    expected = _logits(peft_model)
    assert not torch.allclose(expected, _logits(model), atol=1e-3)
    assert torch.allclose(_logits(load_model(out)), expected, atol=1e-5)
    # base_model overrides the recorded path
    moved = tmp_path / "moved_base"
    base_dir.rename(moved)
    with pytest.raises(ModelLoadError, match="could not load"):
        load_model(out)
    assert torch.allclose(_logits(load_model(out, base_model=moved)), expected, atol=1e-5)


def test_pickle_weights_are_refused(model, tmp_path):
    out = tmp_path / "bin"
    out.mkdir()
    model.config.save_pretrained(out)
    torch.save(model.state_dict(), out / "pytorch_model.bin")
    with pytest.raises(ModelLoadError, match="could not load a causal LM"):
        load_model(out)
