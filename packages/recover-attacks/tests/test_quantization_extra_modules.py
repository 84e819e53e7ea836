"""The bitsandbytes path refuses a model whose extra modules a save/reload round trip would drop."""

from __future__ import annotations

import pytest
import torch
from recover_attacks import RecoverAttacksError
from recover_attacks.attacks.quantization import QuantizationConfig, bnb_quantize_model
from torch import nn
from transformers import LlamaConfig, LlamaForCausalLM


def _tiny() -> LlamaForCausalLM:
    torch.manual_seed(0)
    cfg = LlamaConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                      num_key_value_heads=2, vocab_size=256)  # fmt: skip
    return LlamaForCausalLM(cfg).eval()


def test_plain_model_quantizes() -> None:
    _qmodel, count = bnb_quantize_model(_tiny(), QuantizationConfig(method="nf4"))
    assert count > 0


def test_adapter_outside_the_config_is_not_silently_dropped() -> None:
    model = _tiny()
    # Like an attention adapter attached by an unlearning method: not part of the architecture.
    model.model.layers[0].self_attn.add_module("adapter", nn.Linear(64, 64))
    with pytest.raises(RecoverAttacksError, match=r"reload drops .*adapter.*rtn4"):
        bnb_quantize_model(model, QuantizationConfig(method="nf4"))
