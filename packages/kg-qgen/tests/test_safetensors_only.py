"""The local backend loads weights from safetensors only and runs no repository code (issue 15).

A tiny random Llama is saved the unsafe way (a pickled ``pytorch_model.bin`` and its config, no
safetensors); the real ``AutoModelForCausalLM`` behind :class:`TransformersBackend` must refuse
it. The tokenizer is a stub (the check is about the weights), so nothing is downloaded.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")


class _StubTokenizer:
    padding_side = "right"
    pad_token = None
    eos_token = "</s>"


def test_pickled_weights_are_refused_and_no_remote_code(tmp_path, monkeypatch):
    from kg_qgen.llm.transformers_backend import TransformersBackend

    cfg = transformers.LlamaConfig(
        vocab_size=32,
        hidden_size=8,
        intermediate_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
    )
    model = transformers.AutoModelForCausalLM.from_config(cfg)
    cfg.save_pretrained(tmp_path)
    torch.save(model.state_dict(), tmp_path / "pytorch_model.bin")

    seen: dict = {}

    def tokenizer(path, **kw):
        seen["tokenizer"] = kw
        return _StubTokenizer()

    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", tokenizer)
    real = transformers.AutoModelForCausalLM.from_pretrained

    def model_loader(path, **kw):
        seen["model"] = kw
        return real(path, **kw)

    monkeypatch.setattr(transformers.AutoModelForCausalLM, "from_pretrained", model_loader)
    with pytest.raises(OSError, match=r"model\.safetensors"):
        TransformersBackend(tmp_path, device="cpu", show_progress=False)
    assert seen["model"]["use_safetensors"] is True
    assert seen["model"]["trust_remote_code"] is False
    assert seen["tokenizer"]["trust_remote_code"] is False
    # the same folder with safetensors weights loads
    model.save_pretrained(tmp_path)
    backend = TransformersBackend(tmp_path, device="cpu", show_progress=False)
    assert backend.hf_model.config.vocab_size == 32
