"""`leakres plan`'s training memory against accelerate's and DeepSpeed's figures for the same settings.

accelerate 1.15's `estimate-memory` (``accelerate.commands.estimate``) is run on the real
SmolLM2-135M architecture (an empty model from its cached config.json: nothing is downloaded);
DeepSpeed is not installed here, so its documented ZeRO-3 estimator
(``deepspeed.runtime.zero.stage3.estimate_zero3_model_states_mem_needs``: GPU bytes =
``4 x largest_layer_params + 18 x params / GPUs`` without offload) is written out.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from leakres_cli.models.catalog import resolve_model
from leakres_cli.scale.costs import KNOWN_MODELS, count_parameters
from leakres_cli.scale.memory import TrainingShape, one_device, plan_training, sharded

SMOL = KNOWN_MODELS["HuggingFaceTB/SmolLM2-135M-Instruct"]


def _shape(arch: dict, weight_bytes: float, **kw) -> TrainingShape:
    n = count_parameters(arch)
    values = dict(
        n_params=n, n_trainable=n, hidden=arch["hidden_size"], layers=arch["num_hidden_layers"],
        heads=arch["num_attention_heads"], vocab=arch["vocab_size"],
        intermediate=arch["intermediate_size"], weight_bytes=weight_bytes, batch_size=4,
        seq_len=128, checkpointing=False, reference_copies=0,
    )  # fmt: skip
    values.update(kw)
    return TrainingShape(**values)


@pytest.fixture(scope="module")
def accelerate_figures() -> tuple[int, dict, dict, int]:
    """accelerate's fp32 model size, its training terms for float32 and bfloat16, largest layer."""
    from accelerate import init_empty_weights
    from accelerate.commands.estimate import calculate_maximum_sizes, estimate_training_usage
    from transformers import AutoConfig, AutoModelForCausalLM

    # What `accelerate estimate-memory` does with a Hub name (create_empty_model), from the cached
    # config.json: the Hub name would need the network.
    config = AutoConfig.from_pretrained(Path(resolve_model("smollm2-135m-instruct")))
    with init_empty_weights():
        model = AutoModelForCausalLM.from_config(config)
    total, largest = calculate_maximum_sizes(model)
    return (total, estimate_training_usage(total, "float32"),
            estimate_training_usage(total, "bfloat16"), largest[0])  # fmt: skip


def test_parameter_count_is_accelerates(accelerate_figures) -> None:
    total, *_ = accelerate_figures
    # accelerate sizes the empty model in fp32 and counts the tied lm_head a second time, plus the
    # two rotary inv_freq buffers (head_dim / 2 floats each); the rest is the same count.
    tied = SMOL["vocab_size"] * SMOL["hidden_size"]
    assert total == 4 * (count_parameters(SMOL) + tied + 2 * SMOL["head_dim"] // 2)


def _acc_shape(total: int, weight_bytes: float, **kw) -> TrainingShape:
    """SmolLM2's shape at accelerate's parameter count (the same settings, term by term)."""
    return _shape(SMOL, weight_bytes, n_params=total // 4, n_trainable=total // 4, **kw)


def test_one_device_terms_match_accelerates_same_dtype_training(accelerate_figures) -> None:
    """One device, as unlearn-zoo trains (weights, grads and Adam in the weights' dtype)."""
    total, fp32, _, _ = accelerate_figures
    for weight_bytes in (4, 2):  # float32 and bf16: accelerate's float32 terms at that dtype's size
        mem = one_device(_acc_shape(total, weight_bytes))
        scale = weight_bytes / 4
        assert mem.weights_gb == pytest.approx(fp32["model"] * scale / 1e9, abs=0.01)
        assert mem.gradients_gb == pytest.approx(fp32["gradients"] * scale / 1e9, abs=0.01)
        assert mem.optimizer_gb == pytest.approx(fp32["optimizer"] * scale / 1e9, abs=0.01)
        states = mem.weights_gb + mem.gradients_gb + mem.optimizer_gb
        assert states == pytest.approx(fp32["step"] * scale / 1e9, abs=0.02)  # 16 or 8 B/param


def test_sharded_mixed_precision_matches_accelerate_and_deepspeed(accelerate_figures) -> None:
    """bf16 mixed precision: accelerate's terms (model 4, grads 6, optimizer 8 B/param) summed, and
    DeepSpeed's ZeRO-3 per-GPU estimate (4 x largest layer + 18 x params / GPUs)."""
    total, _, bf16, largest = accelerate_figures
    n = total // 4
    for gpus in (1, 2, 8):
        mem = sharded(_acc_shape(total, 2), gpus)
        states = mem.weights_gb + mem.gradients_gb + mem.optimizer_gb
        accelerate_states = (bf16["model"] + bf16["gradients"] + bf16["optimizer"]) / gpus
        assert states == pytest.approx(accelerate_states / 1e9, abs=0.01)
        deepspeed_gpu = (
            4 * (largest // 4) + 18 * n / gpus
        )  # accelerate gives the layer in fp32 bytes
        assert states + mem.gather_gb == pytest.approx(deepspeed_gpu / 1e9, abs=0.02)
    # Llama-3.1-8B full fine-tuning in bf16 mixed precision: 18 B/param, about 145 GB of states.
    llama = sharded(_shape(KNOWN_MODELS["meta-llama/Llama-3.1-8B-Instruct"], 2), 1)
    assert llama.weights_gb + llama.gradients_gb + llama.optimizer_gb == pytest.approx(
        144.5, abs=0.2
    )


def test_a_cell_that_does_not_fit_one_gpu_is_sharded_over_enough_gpus() -> None:
    llama = KNOWN_MODELS["meta-llama/Llama-3.1-8B-Instruct"]
    ga = plan_training(_shape(llama, 2), usable_gb=72.0)  # 64 GB of states + activations: fits
    assert ga.gpus == 1 and ga.total_gb <= 72.0
    npo = plan_training(_shape(llama, 2, reference_copies=1), usable_gb=72.0)
    assert npo.gpus >= 2 and npo.total_gb <= 72.0  # each GPU's share fits
    assert sharded(_shape(llama, 2, reference_copies=1), npo.gpus - 1).total_gb > 72.0
    # Checkpointing keeps less of the activations, and fp32 doubles every term of one device.
    full = one_device(_shape(llama, 2, batch_size=16))
    ckpt = one_device(_shape(llama, 2, batch_size=16, checkpointing=True))
    assert ckpt.activations_gb < full.activations_gb
    assert one_device(_shape(llama, 4)).optimizer_gb == pytest.approx(2 * ga.optimizer_gb, abs=0.02)
