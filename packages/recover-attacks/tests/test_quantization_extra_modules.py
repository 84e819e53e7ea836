"""The bitsandbytes path quantizes the model it is given, with everything the unlearner added.

An unlearning method may change a model outside its architecture's config: Attention-Shift
(unlearn-zoo) keeps bottleneck adapters outside the module tree and runs them from forward hooks.
A save/reload round trip drops those and would attack the original model; the in-memory swap of
Linear layers keeps them. The hooked adapter below is built the way AS builds its own.
"""

from __future__ import annotations

import tempfile

import pytest
import torch
from recover_attacks.attacks.quantization import (
    QuantizationConfig,
    bnb_config,
    bnb_quantize_model,
    count_bnb_modules,
)
from torch import nn
from transformers import LlamaConfig, LlamaForCausalLM

N_LINEAR = 2 * 7


def _tiny() -> LlamaForCausalLM:
    torch.manual_seed(0)
    cfg = LlamaConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                      num_key_value_heads=2, vocab_size=256)  # fmt: skip
    return LlamaForCausalLM(cfg).eval()


IDS = torch.tensor([[5, 17, 42, 99, 3, 250, 8, 61]])


@torch.no_grad()
def _logits(model: nn.Module) -> torch.Tensor:
    return model(IDS).logits.float()


def _attach_hooked_adapter(model: LlamaForCausalLM) -> None:
    """An AS-style adapter after layer 0's attention: a forward hook, the module kept as a plain
    attribute outside the module tree (so named_parameters and save_pretrained never see it)."""
    attn = model.model.layers[0].self_attn
    torch.manual_seed(1)
    adapter = nn.Sequential(nn.Linear(64, 8), nn.ReLU(), nn.Linear(8, 64))
    object.__setattr__(attn, "outside_adapter", adapter)
    attn.register_forward_hook(lambda m, _i, out: (out[0] + m.outside_adapter(out[0]), *out[1:]))


@pytest.mark.parametrize("method", ["nf4", "fp4", "int8"])
def test_in_memory_quantization_equals_bitsandbytes_config_loading(method: str) -> None:
    """The in-memory swap is the quantization transformers' BitsAndBytesConfig loading makes."""
    from recover_attacks.loading import load_model

    model = _tiny()
    qmodel, count = bnb_quantize_model(model, QuantizationConfig(method=method))
    assert count == N_LINEAR
    with tempfile.TemporaryDirectory() as tmp:
        model.save_pretrained(tmp)
        loaded = load_model(tmp, quantization_config=bnb_config(QuantizationConfig(method=method)),
                            device_map={"": "cpu"})  # fmt: skip
    assert count_bnb_modules(loaded) == N_LINEAR
    assert torch.allclose(_logits(qmodel), _logits(loaded), rtol=1e-4, atol=1e-4)
    assert not torch.allclose(_logits(qmodel), _logits(model), rtol=1e-4, atol=1e-4)  # quantized


@pytest.mark.parametrize("method", ["nf4", "int8"])
def test_hooked_out_of_tree_adapter_survives_quantization(method: str) -> None:
    base, adapted = _tiny(), _tiny()
    _attach_hooked_adapter(adapted)
    effect = (_logits(adapted) - _logits(base)).abs().max().item()
    assert effect > 1e-3  # the adapter changes the model
    config = QuantizationConfig(method=method)
    q_base, _ = bnb_quantize_model(base, config)
    q_adapted, count = bnb_quantize_model(adapted, config)
    assert count == N_LINEAR  # the out-of-tree adapter is not a quantized module
    q_effect = (_logits(q_adapted) - _logits(q_base)).abs().max().item()
    # The save/reload path gave q_effect == 0 exactly (the quantized base). Kept: the same order.
    assert q_effect > 0.5 * effect, (q_effect, effect)


def test_in_tree_adapter_is_quantized_with_the_rest() -> None:
    model = _tiny()
    model.model.layers[0].self_attn.add_module("adapter", nn.Linear(64, 64))
    _qmodel, count = bnb_quantize_model(model, QuantizationConfig(method="nf4"))
    assert count == N_LINEAR + 1


def test_caller_model_is_untouched() -> None:
    model = _tiny()
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    bnb_quantize_model(model, QuantizationConfig(method="nf4"))
    assert all(isinstance(m, nn.Linear) for n, m in model.named_modules() if n.endswith("q_proj"))
    assert all(torch.equal(p, before[n]) for n, p in model.named_parameters())
