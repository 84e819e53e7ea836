import sys

import pytest
import torch
from conftest import make_model
from recover_attacks import MissingDependencyError, RecoverAttacksError, get_attack
from recover_attacks.attacks.quantization import (
    QuantizationConfig,
    bnb_quantize_model,
    rtn_quantize_dequantize,
    rtn_quantize_model,
)
from torch import nn

N_LINEAR = 2 * 7  # q,k,v,o,gate,up,down per layer; lm_head is skipped


@pytest.fixture(scope="module")
def model(tokenizer):
    """Hidden size 64: every Linear's in_features is a multiple of bitsandbytes' 4-bit block (64),
    as in real checkpoints. bitsandbytes' CPU kernels decode narrower layers wrongly (see
    test_cpu_4bit_refuses_shapes_bitsandbytes_decodes_wrongly)."""
    return make_model(len(tokenizer), seed=0, hidden=64)


def _linear_weights(model):
    return {
        n: m.weight.detach().clone()
        for n, m in model.named_modules()
        if isinstance(m, nn.Linear) and not n.endswith("lm_head")
    }


@pytest.mark.parametrize(
    ("group_size", "symmetric"), [(16, True), (128, True), (16, False), (24, False)]
)
def test_rtn4_error_bounded_by_group_scale(model, group_size, symmetric):
    before = _linear_weights(model)
    qmodel, count = rtn_quantize_model(
        model, QuantizationConfig(method="rtn4", rtn_group_size=group_size, rtn_symmetric=symmetric)
    )
    assert count == N_LINEAR
    after = _linear_weights(qmodel)
    # rounding error <= half a step; the asymmetric zero point is rounded too -> one step
    factor = 0.5 if symmetric else 1.0
    for name, w in before.items():
        _, scale = rtn_quantize_dequantize(w, group_size, symmetric)
        per_weight_scale = scale.repeat_interleave(group_size, dim=1)[:, : w.shape[1]]
        err = (after[name] - w).abs()
        assert torch.all(err <= factor * per_weight_scale + 1e-6), name
        assert not torch.equal(after[name], w), "weights were actually quantized"
        levels = 15 if symmetric else 16
        for row in range(0, w.shape[0], 7):  # at most 15/16 distinct values per group
            assert after[name][row, :group_size].unique().numel() <= levels
    # the caller's model is untouched (quantized on a copy)
    assert all(torch.equal(w, _linear_weights(model)[n]) for n, w in before.items())


@pytest.mark.parametrize("method", ["nf4", "fp4"])
def test_bnb_4bit_within_one_step_of_original(model, method):
    import bitsandbytes.functional as F

    before = _linear_weights(model)
    qmodel, count = bnb_quantize_model(model, QuantizationConfig(method=method))
    assert count == N_LINEAR
    code = F.get_4bit_type(method, device="cpu").float()
    max_gap = (code.sort().values.diff()).max().item()  # widest gap between adjacent levels
    checked = 0
    for name, module in qmodel.named_modules():
        if name not in before:
            continue
        assert module.weight.__class__.__name__ == "Params4bit", name
        data, state = module.weight.data, module.weight.quant_state
        if getattr(state, "packing_format_for_cpu", False):
            # The attack's one-time forward check ran this layer on an AVX-512 BF16 CPU, where
            # bitsandbytes repacks the weight for its matmul; undo that to read the stored codes.
            data, state = F._convert_weight_packed_for_cpu_inverse(data, state)
        deq = F.dequantize_4bit(data, state).float().reshape(before[name].shape)
        w = before[name].float().flatten()
        blocks = w.reshape(-1, state.blocksize)
        absmax = blocks.abs().amax(dim=1, keepdim=True)
        err = (deq.flatten().reshape(-1, state.blocksize) - blocks).abs()
        assert torch.all(err <= absmax * max_gap + 1e-5), name
        assert not torch.equal(deq.flatten(), w)
        checked += 1
    assert checked == N_LINEAR


@pytest.mark.parametrize("method", ["nf4", "fp4", "int8", "rtn4"])
def test_attack_runs_and_reports_module_count(model, tokenizer, questions, method):
    results = get_attack("quantization", method=method, max_new_tokens=4).run(
        model, tokenizer, questions, progress=False
    )
    assert [r.id for r in results] == [q["id"] for q in questions]
    assert all(len(r.responses) == 1 for r in results)
    assert results[0].settings["quantized_modules"] == N_LINEAR
    assert results[0].settings["method"] == method


def test_missing_bitsandbytes_gives_install_hint(model, tokenizer, questions, monkeypatch):
    monkeypatch.setitem(sys.modules, "bitsandbytes", None)  # makes `import bitsandbytes` fail
    with pytest.raises(MissingDependencyError, match=r"pip install 'recover-attacks\[quant\]'"):
        get_attack("quantization", method="nf4").run(model, tokenizer, questions, progress=False)
    # rtn4 needs no bitsandbytes
    out = get_attack("quantization", method="rtn4", max_new_tokens=2).run(
        model, tokenizer, questions, progress=False
    )
    assert len(out) == len(questions)


@pytest.mark.parametrize("method", ["nf4", "fp4"])
def test_cpu_4bit_refuses_shapes_bitsandbytes_decodes_wrongly(tokenizer, method):
    narrow = make_model(len(tokenizer), seed=0, hidden=32)  # in_features 32 < the 64-weight block
    with pytest.raises(RecoverAttacksError, match=r"in_features must be a multiple of 64.*rtn4"):
        bnb_quantize_model(narrow, QuantizationConfig(method=method))


@pytest.mark.parametrize("method", ["nf4", "fp4"])
def test_bnb_4bit_forward_equals_matmul_with_its_dequantized_weight(model, method):
    """The quantized model's forward (bitsandbytes' CPU matmul, AVX-512 packed where the CPU
    has it) computes x @ W_deq^T with the weights the quantizer stored: the attack decodes
    the model it claims to."""
    import bitsandbytes.functional as F

    qmodel, _ = bnb_quantize_model(model, QuantizationConfig(method=method))
    layer = qmodel.model.layers[0].mlp.up_proj
    # Dequantize before the first forward: the CPU matmul may repack the weight in place.
    deq = F.dequantize_4bit(layer.weight.data, layer.weight.quant_state).float()
    x = torch.randn(3, layer.in_features, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        got = layer(x).float()
    want = x @ deq.T
    # bitsandbytes' CPU matmul may compute in bf16: compare at bf16 resolution.
    assert torch.allclose(got, want, rtol=2e-2, atol=2e-2 * want.abs().max().item())


def test_attack_refuses_a_backend_whose_matmul_ignores_its_weights(model, monkeypatch):
    """A bitsandbytes kernel broken on the machine (simulated: the 4-bit forward returns zeros)
    is caught by the attack's one-time check instead of being reported as recovered answers."""
    import bitsandbytes as bnb

    monkeypatch.setattr(
        bnb.nn.Linear4bit, "forward", lambda self, x: torch.zeros(*x.shape[:-1], self.out_features)
    )
    with pytest.raises(
        RecoverAttacksError, match=r"does not compute with its own quantized weights.*rtn4"
    ):
        bnb_quantize_model(model, QuantizationConfig(method="nf4"))
