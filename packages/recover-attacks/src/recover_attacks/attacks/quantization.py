"""Quantization (Zhang et al., ICLR 2025): reload the unlearned model quantized, decode greedily.

``nf4`` / ``fp4`` / ``int8`` use bitsandbytes: the in-memory model's Linear layers are swapped for
bitsandbytes' quantized layers on a deep copy (the settings ``BitsAndBytesConfig`` loading uses),
so every change the unlearner made, hooks and out-of-tree adapters included, is what gets
quantized; a model path loads quantized through ``BitsAndBytesConfig``.
``rtn4`` is plain round-to-nearest group-wise 4-bit: every ``nn.Linear`` weight of a deep copy
is quantized and dequantized in place (no extra dependency). The copy is freed afterwards.
"""

from __future__ import annotations

import copy
import dataclasses
import gc
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import torch
from torch import nn

from ..base import Attack, AttackInputs, AttackResult
from ..budget_axis import BudgetAxis
from ..errors import ConfigError, MissingDependencyError, RecoverAttacksError
from ..generation import model_device
from ..loading import load_model
from ..records import QuestionRecord
from .common import DecodeConfig, greedy_answers

BNB_INSTALL_HINT = (
    "the quantization attack with method nf4/fp4/int8 needs bitsandbytes: "
    "pip install 'recover-attacks[quant]' (or pip install bitsandbytes); "
    "method='rtn4' works without it"
)


@dataclasses.dataclass
class QuantizationConfig(DecodeConfig):
    """method: ``fp4`` (bitsandbytes default, used by the paper's code), ``nf4``, ``int8``
    or ``rtn4``. rtn_group_size / rtn_symmetric: rtn4 groups along the input dimension
    (128 weights share a scale); symmetric uses levels -7..7 with scale absmax/7, asymmetric
    levels 0..15 with scale (max-min)/15 and an integer zero point. skip_modules: Linear
    modules left in full precision (lm_head, as bitsandbytes does by default).
    bnb_double_quant: bitsandbytes nested quantization of the 4-bit scales."""

    method: Literal["fp4", "nf4", "int8", "rtn4"] = "fp4"
    rtn_group_size: int = 128
    rtn_symmetric: bool = True
    skip_modules: list[str] = dataclasses.field(default_factory=lambda: ["lm_head"])
    bnb_double_quant: bool = False

    def validate(self) -> None:
        super().validate()
        if self.rtn_group_size < 1:
            raise ConfigError("QuantizationConfig.rtn_group_size must be >= 1")


def import_bitsandbytes() -> Any:
    try:
        import bitsandbytes
    except ImportError as exc:
        raise MissingDependencyError(BNB_INSTALL_HINT) from exc
    return bitsandbytes


# ---- round-to-nearest group-wise 4-bit -------------------------------------------------


def rtn_quantize_dequantize(
    weight: torch.Tensor, group_size: int = 128, symmetric: bool = True
) -> tuple[torch.Tensor, torch.Tensor]:
    """Return (dequantized weight, per-group scale with shape [out, n_groups]).

    Groups run along the last (input) dimension; a ragged last group is zero-padded for the
    statistics only. |w - deq| <= scale/2 for symmetric and <= scale for asymmetric (the zero
    point is rounded too), per group.
    """
    out_features, in_features = weight.shape
    w = weight.detach().float()
    pad = (-in_features) % group_size
    if pad:
        w = torch.nn.functional.pad(w, (0, pad))
    g = w.reshape(out_features, -1, group_size)
    if symmetric:
        scale = g.abs().amax(dim=-1, keepdim=True) / 7.0
        scale = torch.where(scale == 0, torch.ones_like(scale), scale)
        q = torch.clamp(torch.round(g / scale), -7, 7)
        deq = q * scale
    else:
        lo, hi = g.amin(dim=-1, keepdim=True), g.amax(dim=-1, keepdim=True)
        scale = (hi - lo) / 15.0
        scale = torch.where(scale == 0, torch.ones_like(scale), scale)
        zero = torch.round(-lo / scale)
        q = torch.clamp(torch.round(g / scale) + zero, 0, 15)
        deq = (q - zero) * scale
    deq = deq.reshape(out_features, -1)[:, :in_features].to(weight.dtype)
    return deq, scale.squeeze(-1)


def _skipped(name: str, skip: Sequence[str]) -> bool:
    return any(name == s or name.endswith("." + s) for s in skip)


@torch.no_grad()
def rtn_quantize_model(model: nn.Module, config: QuantizationConfig) -> tuple[nn.Module, int]:
    """Deep copy ``model`` and fake-quantize every Linear weight not in ``skip_modules``."""
    qmodel = copy.deepcopy(model)
    count = 0
    for name, module in qmodel.named_modules():
        if isinstance(module, nn.Linear) and not _skipped(name, config.skip_modules):
            deq, _ = rtn_quantize_dequantize(
                module.weight, config.rtn_group_size, config.rtn_symmetric
            )
            module.weight.copy_(deq)
            count += 1
    return qmodel, count


# ---- bitsandbytes ----------------------------------------------------------------------


def bnb_config(config: QuantizationConfig) -> Any:
    import_bitsandbytes()
    from transformers import BitsAndBytesConfig

    if config.method == "int8":
        return BitsAndBytesConfig(
            load_in_8bit=True, llm_int8_skip_modules=list(config.skip_modules)
        )
    return BitsAndBytesConfig(
        load_in_4bit=True,
        bnb_4bit_quant_type=config.method,
        bnb_4bit_compute_dtype=torch.float32,
        bnb_4bit_use_double_quant=config.bnb_double_quant,
        llm_int8_skip_modules=list(config.skip_modules),
    )


def count_bnb_modules(model: nn.Module) -> int:
    bnb = import_bitsandbytes()
    kinds = (bnb.nn.Linear4bit, bnb.nn.Linear8bitLt)
    return sum(isinstance(m, kinds) for m in model.modules())


def bnb_quantize_model(model: Any, config: QuantizationConfig) -> tuple[Any, int]:
    """The model quantized by bitsandbytes and the number of quantized Linear modules.

    An in-memory model is quantized in memory: a deep copy whose ``nn.Linear`` layers (all but
    ``skip_modules``) are swapped for bitsandbytes' ``Linear4bit`` / ``Linear8bitLt`` built from
    the same weights, with the settings ``BitsAndBytesConfig`` loading uses (block size 64, the
    configured quant type and double quantization, int8 outlier threshold 6.0). Everything else
    the unlearner changed survives: forward hooks, modules kept outside the module tree (the
    Attention-Shift adapters), unmerged wrappers. A save/reload round trip would drop those and
    attack the original model. Peak memory is about twice the model while the copy is made.
    A path is loaded quantized with ``from_pretrained(quantization_config=...)``.
    """
    if isinstance(model, (str, Path)):
        return _load_bnb(model, bnb_config(config), config, "cpu")
    bnb = import_bitsandbytes()
    qmodel = copy.deepcopy(model)
    device = model_device(model)
    targets = [
        (name, module)
        for name, module in qmodel.named_modules()
        if isinstance(module, nn.Linear) and not _skipped(name, config.skip_modules)
    ]
    for name, linear in targets:
        parent_name, _, child = name.rpartition(".")
        parent = qmodel.get_submodule(parent_name) if parent_name else qmodel
        setattr(parent, child, _bnb_linear(bnb, linear, config, device))
    del targets
    gc.collect()
    return _validated(qmodel, config)


def _bnb_linear(
    bnb: Any, linear: nn.Linear, config: QuantizationConfig, device: torch.device
) -> Any:
    """bitsandbytes' quantized twin of ``linear`` (the weights quantize on ``.to(device)``)."""
    has_bias = linear.bias is not None
    weight = linear.weight.detach().to(torch.float32).cpu()
    if config.method == "int8":
        qlinear = bnb.nn.Linear8bitLt(
            linear.in_features, linear.out_features, bias=has_bias, has_fp16_weights=False,
            threshold=6.0, device="meta",
        )  # fmt: skip
        qlinear.weight = bnb.nn.Int8Params(weight, requires_grad=False, has_fp16_weights=False)
    else:
        qlinear = bnb.nn.Linear4bit(
            linear.in_features, linear.out_features, bias=has_bias,
            compute_dtype=torch.float32, compress_statistics=config.bnb_double_quant,
            quant_type=config.method, device="meta",
        )  # fmt: skip
        qlinear.weight = bnb.nn.Params4bit(
            weight, requires_grad=False, compress_statistics=config.bnb_double_quant,
            quant_type=config.method, blocksize=BNB_4BIT_BLOCKSIZE,
        )  # fmt: skip
    if has_bias:
        qlinear.bias = nn.Parameter(
            linear.bias.detach().to(torch.float32).cpu(), requires_grad=False
        )
    # A new module starts in training mode; bitsandbytes picks its CPU kernel by mode.
    return qlinear.to(device).train(linear.training)


def _validated(qmodel: Any, config: QuantizationConfig) -> tuple[Any, int]:
    """Count the quantized modules and check the backend computes with them on this machine."""
    if config.method in ("nf4", "fp4") and model_device(qmodel).type == "cpu":
        _check_cpu_4bit_shapes(qmodel, config)
    count = count_bnb_modules(qmodel)
    if count == 0:
        raise RecoverAttacksError(
            f"bitsandbytes quantized no module of the model for method {config.method!r}"
        )
    _check_backend_forward(qmodel, config)
    return qmodel, count


# bitsandbytes' 4-bit block size for weights loaded through BitsAndBytesConfig.
BNB_4BIT_BLOCKSIZE = 64
# Its AVX-512 BF16 CPU matmul packs weights in tiles of this many output rows.
BNB_CPU_PACK_ROWS = 32


def _check_cpu_4bit_shapes(qmodel: nn.Module, config: QuantizationConfig) -> None:
    """Refuse 4-bit shapes that bitsandbytes' CPU kernels decode wrongly.

    Measured with bitsandbytes 0.50.2 on an AVX-512 CPU: its CPU dequantizer walks blocks row
    by row, so a Linear whose in_features is not a multiple of the 64-weight block gets weights
    off by up to the block's absmax (not the half-step that 4-bit rounding allows), and the
    AVX-512 BF16 matmul's packing fails outright when in_features < 64. Real checkpoints
    (hidden sizes multiple of 64) are unaffected; a model that is not would be attacked with
    corrupted weights, so say so instead of reporting its answers.
    """
    linear4bit = import_bitsandbytes().nn.Linear4bit
    bad = [
        f"{name} ({module.out_features}x{module.in_features})"
        for name, module in qmodel.named_modules()
        if isinstance(module, linear4bit)
        and (module.in_features % BNB_4BIT_BLOCKSIZE or module.out_features % BNB_CPU_PACK_ROWS)
    ]
    if bad:
        shown = ", ".join(bad[:3]) + (" ..." if len(bad) > 3 else "")
        raise RecoverAttacksError(
            f"{len(bad)} Linear module(s) have shapes bitsandbytes' CPU {config.method} kernels "
            f"decode incorrectly (in_features must be a multiple of {BNB_4BIT_BLOCKSIZE} and "
            f"out_features of {BNB_CPU_PACK_ROWS}): {shown}. Use method='rtn4', list them in "
            "skip_modules, or run on CUDA"
        )


def _load_bnb(
    path: str | Path, qconfig: Any, config: QuantizationConfig, device: str
) -> tuple[Any, int]:
    try:
        qmodel = load_model(path, quantization_config=qconfig, device_map={"": device})
    except RecoverAttacksError as exc:
        raise RecoverAttacksError(
            f"bitsandbytes could not load the model quantized as {config.method!r} on this "
            f"machine ({exc}). On CPU bitsandbytes >= 0.45 supports nf4/fp4/int8; otherwise "
            "use method='rtn4'"
        ) from exc
    return _validated(qmodel, config)


def _dequantized_weight(module: nn.Module) -> torch.Tensor:
    """The float weight a bitsandbytes Linear stores, decoded by bitsandbytes itself."""
    bnb = import_bitsandbytes()
    weight = module.weight
    if isinstance(module, bnb.nn.Linear4bit):
        return bnb.functional.dequantize_4bit(weight.data, weight.quant_state).float()
    scb = getattr(weight, "SCB", None)
    if scb is None:
        scb = module.state.SCB
    return weight.data.float() * scb.float().unsqueeze(1) / 127.0  # int8 row-wise absmax


@torch.no_grad()
def _check_backend_forward(qmodel: nn.Module, config: QuantizationConfig) -> None:
    """Once per quantized model: its first quantized Linear must compute x @ W_deq^T.

    bitsandbytes picks CPU/GPU kernels by what the machine has (AVX-512 BF16 packing, CUDA
    kernels); a kernel that is broken on this machine would make the attack decode a different
    model than the quantized one and report its answers as recovered facts.
    """
    bnb = import_bitsandbytes()
    module = next(
        m for m in qmodel.modules() if isinstance(m, (bnb.nn.Linear4bit, bnb.nn.Linear8bitLt))
    )
    # Decode before the first forward: the CPU matmul may repack the weight in place.
    deq = _dequantized_weight(module)
    device = deq.device
    x = torch.randn(4, module.in_features, generator=torch.Generator().manual_seed(0)).to(device)
    want = x @ deq.T
    if module.bias is not None:
        want = want + module.bias.float()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="MatMul8bitLt")
        got = module(x).float()
    # Tolerance: bf16 compute on AVX-512 CPUs and int8 activation rounding, both ~1% of the scale.
    scale = want.abs().max().item()
    gap = (got - want).abs().max().item()
    if not gap <= 0.05 * scale + 1e-6:
        raise RecoverAttacksError(
            f"bitsandbytes' {config.method} matmul on this machine ({device}) does not compute "
            f"with its own quantized weights (max deviation {gap:.3g} at output scale "
            f"{scale:.3g}); the quantized model would not be the one attacked. Use method='rtn4' "
            "or another bitsandbytes build"
        )


class QuantizationAttack(Attack[QuantizationConfig]):
    """Greedy decoding of a quantized copy of the unlearned model."""

    name = "quantization"
    budget = BudgetAxis(
        "method", "weight precision (8-bit, then the 4-bit variants)", ("int8", "fp4", "nf4")
    )
    changes_weights = True
    config_cls = QuantizationConfig

    def run(
        self,
        model: Any,
        tokenizer: Any,
        questions: Sequence[QuestionRecord],
        inputs: AttackInputs | None = None,
        **kwargs: Any,
    ) -> list[AttackResult]:
        # Fail on a missing bitsandbytes before anything is loaded or saved.
        if self.config.method != "rtn4":
            import_bitsandbytes()
        return super().run(model, tokenizer, questions, inputs, **kwargs)

    def _run(
        self,
        model: Any,
        tokenizer: Any,
        questions: list[QuestionRecord],
        *,
        progress: bool,
    ) -> list[AttackResult]:
        c = self.config
        qmodel, count = quantize(model, c)
        try:
            with warnings.catch_warnings():
                # bitsandbytes int8 on CPU warns on every matmul that inputs are cast to fp16.
                warnings.filterwarnings("ignore", message="MatMul8bitLt")
                responses = greedy_answers(qmodel, tokenizer, questions, c, progress=progress)
        finally:
            del qmodel
            gc.collect()
        return self._results(questions, responses, quantized_modules=count)


def quantize(model: Any, config: QuantizationConfig) -> tuple[Any, int]:
    """The quantized copy of ``model`` and the number of quantized Linear modules."""
    if config.method == "rtn4":
        if isinstance(model, (str, Path)):
            model = load_model(model)
        return rtn_quantize_model(model, config)
    return bnb_quantize_model(model, config)
