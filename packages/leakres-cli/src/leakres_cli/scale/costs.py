"""GPU-hour and memory estimates of a run grid, from parameter counts and token counts only.

Nothing is loaded: a model's size comes from :data:`KNOWN_MODELS` (the architecture fields of the
models' own ``config.json`` on the Hub, shipped here) or from a local ``config.json``, and its
parameter count is computed from those fields (:func:`count_parameters`). Compute is the usual
dense-transformer rule: ``2 N`` FLOPs per token for a forward pass, ``6 N`` for a training step
(forward + backward), at a stated GPU peak throughput and model-FLOPs utilisation (MFU). Every
constant used is in :class:`Assumptions` and is printed with the plan; token counts are upper
bounds (e.g. every multi-hop question counted as reaching a forget fact, every answer running to
its token budget), so the estimate is a budget, not a prediction. The costs of ``--attack-budgets``
ladders, the controls, ``--eval-every`` trajectories and ``--seeds`` are :mod:`.run_extras`'s, by
the same rule.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from leakres_cli.config.run_config import RunConfig
from leakres_cli.errors import LeakresError
from leakres_cli.scale import run_extras
from leakres_cli.scale.memory import TrainingShape, plan_training

#: unlearn-zoo's 'large' tier (>= 10B parameters): LoRA, activation checkpointing, batch 2
LARGE_TIER = {"use_lora": True, "gradient_checkpointing": True, "batch_size": 2}

#: Architecture fields of the known models, copied from each Hub repository's config.json.
KNOWN_MODELS: dict[str, dict[str, Any]] = {
    "meta-llama/Llama-3.1-8B-Instruct": {
        "vocab_size": 128256, "hidden_size": 4096, "intermediate_size": 14336,
        "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
        "head_dim": 128, "tie_word_embeddings": False, "model_type": "llama",
    },
    "Qwen/Qwen3-14B": {
        "vocab_size": 151936, "hidden_size": 5120, "intermediate_size": 17408,
        "num_hidden_layers": 40, "num_attention_heads": 40, "num_key_value_heads": 8,
        "head_dim": 128, "tie_word_embeddings": False, "model_type": "qwen3",
    },
    "Qwen/Qwen3-32B": {
        "vocab_size": 151936, "hidden_size": 5120, "intermediate_size": 25600,
        "num_hidden_layers": 64, "num_attention_heads": 64, "num_key_value_heads": 8,
        "head_dim": 128, "tie_word_embeddings": False, "model_type": "qwen3",
    },
    "HuggingFaceTB/SmolLM2-135M-Instruct": {
        "vocab_size": 49152, "hidden_size": 576, "intermediate_size": 1536,
        "num_hidden_layers": 30, "num_attention_heads": 9, "num_key_value_heads": 3,
        "head_dim": 64, "tie_word_embeddings": True, "model_type": "llama",
    },
}  # fmt: skip
KNOWN_MODELS["smollm2-135m-instruct"] = KNOWN_MODELS["HuggingFaceTB/SmolLM2-135M-Instruct"]


@dataclass(frozen=True)
class Assumptions:
    """Every constant of the estimate (printed with the plan; override with leakres plan options)."""

    gpu_name: str = "A800/A100 80GB (the paper's hardware, appendix D.5)"
    gpu_peak_tflops: float = 312.0  # dense bf16 tensor-core peak of an A100/A800
    gpu_memory_gb: float = 80.0
    usable_memory_fraction: float = 0.9  # CUDA context, fragmentation
    train_mfu: float = 0.35  # typical for full/LoRA fine-tuning with HF Trainer
    inference_mfu: float = 0.10  # decoding is memory-bound: far below the training MFU
    prompt_tokens: int = 64  # chat template + question (upper end for Llama-3.1's system header)
    answer_tokens: int = 16  # gold answer tokens in a training example
    train_example_tokens: int = 80  # prompt + answer + EOS of an unlearning example
    focus_question_tokens: int = 20  # FocusOnKey: one forward sequence per question token + 1
    bbh_examples: int = 6511  # all 27 tasks, every example (bbh_limit 0)
    bbh_prompt_tokens: int = 1200  # 3-shot CoT prompt (~4.6k characters) + the input
    bbh_cot_tokens: int = 256  # leak-metrics' CoT generation budget
    bbh_direct_tokens: int = 16
    bytes_per_param: dict[str, float] = field(
        default_factory=lambda: {"bfloat16": 2, "float32": 4, "int8": 1, "int4": 0.5}
    )
    # Training memory: leakres_cli.scale.memory (one device: 4 x the dtype's bytes per trained parameter,
    # as unlearn-zoo trains; sharded: 18 B/param bf16 mixed precision) plus references and activations.
    lora_trainable_fraction: float = 0.01  # LoRA adapters (r 16, all linear) ~1% of the weights
    kv_batch_rows: int = 64  # sequences decoded at once for the KV-cache term

    def describe(self) -> dict[str, Any]:
        return asdict(self)


def count_parameters(arch: dict[str, Any]) -> int:
    """Parameters of a Llama/Qwen-style decoder from its config fields (norms included)."""
    try:
        vocab, hidden = int(arch["vocab_size"]), int(arch["hidden_size"])
        inter, layers = int(arch["intermediate_size"]), int(arch["num_hidden_layers"])
        heads = int(arch["num_attention_heads"])
        kv = int(arch.get("num_key_value_heads") or heads)
        head_dim = int(arch.get("head_dim") or hidden // heads)
    except (KeyError, TypeError, ValueError) as exc:
        raise LeakresError(f"model config lacks a size field: {exc}") from exc
    attention = hidden * heads * head_dim * 2 + hidden * kv * head_dim * 2
    mlp = 3 * hidden * inter
    norms = 2 * hidden + (2 * head_dim if arch.get("model_type") == "qwen3" else 0)
    embeddings = vocab * hidden * (1 if arch.get("tie_word_embeddings") else 2)
    return layers * (attention + mlp + norms) + embeddings + hidden


def model_architecture(model: str) -> tuple[dict[str, Any], str]:
    """(architecture fields, where they came from) for a known model or a local directory."""
    if model in KNOWN_MODELS:
        return KNOWN_MODELS[model], "shipped table (the model's Hub config.json)"
    path = Path(model).expanduser()
    config = path / "config.json" if path.is_dir() else None
    if config is not None and config.is_file():
        try:
            data = json.loads(config.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise LeakresError(f"{config}: not readable JSON ({exc})") from exc
        data = data.get("text_config", data)  # multimodal wrappers keep the LM under text_config
        return data, str(config)
    raise LeakresError(
        f"model '{model}': size unknown without loading it; known: {', '.join(KNOWN_MODELS)}, "
        "or give a local directory with a config.json"
    )


@dataclass
class CellCost:
    model: str
    method: str  # "base" for the base model's stages
    stage: str
    job: str  # the `leakres run --cell` id that runs this stage
    tflop: float
    gpu_hours: float
    memory_gb: float
    gpus: int
    note: str
    memory_terms: dict[str, Any] | None = (
        None  # unlearning: :class:`~leakres_cli.scale.memory.TrainingMemory`
    )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _hours(flops: float, mfu: float, a: Assumptions) -> float:
    return flops / (a.gpu_peak_tflops * 1e12 * mfu) / 3600.0


def estimate(
    cfg: RunConfig, models: tuple[str, ...], job_ids: dict[tuple[str, str], str], a: Assumptions
) -> list[CellCost]:
    """One :class:`CellCost` per (model, method, stage) of the grid."""
    n_types = len([t for t in cfg.types if t != "SH"])
    n_multi = cfg.per_type * n_types
    n_sh = n_multi + cfg.sh_pool  # upper bound: every multi-hop question reaches its own fact
    gen = cfg.max_new_tokens
    q_tokens = a.prompt_tokens + gen
    n_eval = cfg.n_forget + cfg.n_retain + n_multi  # upper bound: all multi-hop on forget facts
    n_attack = cfg.n_forget + n_multi  # S_suc <= forget SH + their multi-hop questions
    weight_bytes = a.bytes_per_param["bfloat16" if cfg.dtype in ("auto", "bfloat16") else "float32"]
    rows: list[CellCost] = []
    for model in models:
        arch, _ = model_architecture(model)
        n = count_parameters(arch)
        layers, kv = int(arch["num_hidden_layers"]), int(arch.get("num_key_value_heads") or 1)
        head_dim = int(arch.get("head_dim") or int(arch["hidden_size"]) // int(arch["num_attention_heads"]))  # fmt: skip
        weights_gb = n * weight_bytes / 1e9
        kv_gb = 2 * layers * kv * head_dim * weight_bytes * a.kv_batch_rows * q_tokens / 1e9
        large = n >= 10_000_000_000  # unlearn-zoo's 'large' tier: LoRA + gradient checkpointing

        def add(method: str, stage: str, flops: float, mfu: float, mem: float, note: str,
                model: str = model, gpus: int | None = None,
                memory_terms: dict[str, Any] | None = None) -> None:  # fmt: skip
            if gpus is None:  # inference: GPUs' worth of memory (the CLI generates on one device)
                gpus = max(1, math.ceil(mem / (a.gpu_memory_gb * a.usable_memory_fraction)))
            rows.append(CellCost(model, method, stage, job_ids[(model, method)], round(flops / 1e12, 1),
                                 round(_hours(flops, mfu, a), 6), round(mem, 1), gpus, note,
                                 memory_terms))  # fmt: skip

        infer_mem = weights_gb + kv_gb
        add("base", "base answers", 2 * n * (n_sh + n_multi) * q_tokens, a.inference_mfu,
            infer_mem, f"{n_sh} SH + {n_multi} multi-hop questions, greedy")  # fmt: skip
        bbh_gen = a.bbh_cot_tokens if cfg.bbh_cot else a.bbh_direct_tokens
        bbh_n = _bbh_examples(cfg, a)
        bbh_flops = 2 * n * bbh_n * (a.bbh_prompt_tokens + bbh_gen)
        if cfg.bbh_tasks:
            add("base", "bbh", bbh_flops, a.inference_mfu, infer_mem,
                f"{bbh_n} BBH examples, {'CoT' if cfg.bbh_cot else 'direct'}")  # fmt: skip

        cost = lambda at, settings, n=n, w=weights_gb, kv=kv_gb: attack_cost(cfg, at, n, n_attack, q_tokens, w, kv, a, settings)  # noqa: E731  # fmt: skip
        for method in cfg.methods:
            first = len(rows)
            flops, memory, note = _unlearn_cost(cfg, method, large, arch, n, weight_bytes, a)
            add(method, "unlearn", flops, a.train_mfu, memory.total_gb, note,
                gpus=memory.gpus, memory_terms=memory.to_dict())  # fmt: skip
            add(method, "eval", 2 * n * n_eval * q_tokens, a.inference_mfu, infer_mem,
                f"{n_eval} questions, greedy")  # fmt: skip
            for attack in cfg.attacks:
                add(method, f"attack:{attack}", *cost(attack, None))
            # the controls, --attack-budgets ladders, --eval-every checkpoints
            trajectory = run_extras.trajectory_row(cfg, _unlearner(cfg, method, large), n, q_tokens, infer_mem, a.inference_mfu)  # fmt: skip
            for row in filter(None, [*run_extras.attack_rows(cfg, cost), trajectory]):
                add(method, *row)
            if cfg.bbh_tasks:
                add(method, "bbh", bbh_flops, a.inference_mfu, infer_mem, f"{bbh_n} BBH examples")
            if seeds := run_extras.seeds_extra(rows[first:], cfg):  # --seeds: again per seed
                rows.append(CellCost(model, method, job=job_ids[(model, method)], **seeds))
    return rows


def _bbh_examples(cfg: RunConfig, a: Assumptions) -> int:
    """BBH examples a model answers: every example, or --bbh-limit per task (27 tasks for all)."""
    bbh_n = a.bbh_examples if cfg.bbh_tasks == ("all",) and not cfg.bbh_limit else (
        len(cfg.bbh_tasks) * cfg.bbh_limit if cfg.bbh_limit else 0)  # fmt: skip
    if cfg.bbh_tasks == ("all",) and cfg.bbh_limit:
        bbh_n = 27 * cfg.bbh_limit
    return bbh_n


def _unlearn_cost(cfg: RunConfig, method: str, large: bool, arch: dict[str, Any], n: int,
                  weight_bytes: float, a: Assumptions) -> tuple[float, Any, str]:  # fmt: skip
    """One method's unlearning: FLOPs, the memory plan (:func:`plan_training`) and the note."""
    unlearner = _unlearner(cfg, method, large)
    needs = unlearner.needs()  # unlearn-zoo's own: reference forward, retain set, copies
    examples = cfg.n_forget + (cfg.n_retain if needs.retain_set else 0)
    epochs = float(cfg.method_overrides.get(method, {}).get("epochs", 3))
    tokens = epochs * examples * a.train_example_tokens
    flops = 6 * n * tokens + (2 * n * tokens if needs.reference_model else 0)
    shape, how = _training_shape(unlearner, arch, n, weight_bytes, a)
    memory = plan_training(shape, a.gpu_memory_gb * a.usable_memory_fraction)
    return flops, memory, f"{epochs:g} epochs x {examples} examples; {how}; {memory.mode}"


def _attack_config(cfg: RunConfig, attack: str, settings: dict[str, Any] | None) -> Any:
    """The attack's config as recover-attacks builds it: its defaults, ``--set``, ``settings``
    (a ladder rung's) on top; the defaults alone when those do not validate (checked elsewhere)."""
    from recover_attacks import get_attack_class

    config_cls = get_attack_class(attack).config_cls
    try:
        return config_cls.from_overrides(**{**cfg.attack_overrides.get(attack, {}), **(settings or {})})  # fmt: skip
    except Exception:  # any config error is reported by the plan's validation
        return config_cls.from_overrides(**(settings or {}))


def attack_cost(cfg: RunConfig, attack: str, n: int, n_attack: int, q_tokens: int,
                weights_gb: float, kv_gb: float, a: Assumptions,
                settings: dict[str, Any] | None = None) -> tuple[float, float, float, str]:  # fmt: skip
    """One attack on one method's model: (FLOPs, MFU, memory GB, note); ``settings``: a ladder
    rung's setting on top of the attack's config (samples, steps, shots, precision)."""
    gen = cfg.max_new_tokens
    conf = _attack_config(cfg, attack, settings)
    samples = int(getattr(conf, "num_samples", 1))
    if attack == "probab":
        flops = 2 * n * n_attack * (a.prompt_tokens + samples * gen)
        return (
            flops,
            a.inference_mfu,
            weights_gb + kv_gb,
            f"{n_attack} questions x {samples} samples",
        )
    elif attack == "focus_on_key":
        flops = 2 * n * n_attack * ((a.focus_question_tokens + 1) * (q_tokens) + q_tokens)
        return (flops, a.inference_mfu, 2 * weights_gb + kv_gb,
                "key tokens on theta_p (one sequence per question token) + greedy; both models in memory")  # fmt: skip
    elif attack == "quantization":
        flops = 2 * n * n_attack * q_tokens
        bits = "int8" if getattr(conf, "method", "") == "int8" else "int4"
        mem = weights_gb + n * a.bytes_per_param[bits] / 1e9 + kv_gb
        return flops, a.inference_mfu, mem, f"{bits[3:]}-bit reload (saved copy + bnb) + greedy"
    elif attack == "relearn":
        steps, batch = int(conf.steps), int(conf.train_batch_size)
        flops = 6 * n * steps * batch * a.train_example_tokens + 2 * n * n_attack * q_tokens
        return (flops, a.train_mfu, weights_gb * 2 + kv_gb,
                f"{steps} LoRA steps x batch {batch} on a copy + greedy")  # fmt: skip
    else:  # in_context, and a plugin's: greedy with context; its models per its needs
        shots = int(getattr(conf, "max_shots", 4))  # a plugin without shots: in_context's default
        return (2 * n * n_attack * shots * q_tokens, a.inference_mfu,
                _attack_models(attack) * weights_gb + kv_gb, f"greedy with up to {shots} context shots")  # fmt: skip


def _unlearner(cfg: RunConfig, method: str, large: bool) -> Any:
    """The method as unlearn-zoo configures it (its defaults, the size tier, --set)."""
    from unlearn_zoo import get_unlearner

    settings = {**(LARGE_TIER if large else {}), **cfg.method_overrides.get(method, {})}
    try:
        return get_unlearner(method, **settings)
    except (KeyError, ValueError, TypeError):  # validated elsewhere; size it with the defaults
        return get_unlearner(method)


def _attack_models(attack: str) -> int:
    """Copies of the weights an attack holds, from what recover-attacks says it needs: the
    attacked model, theta_p when it requires the original model, a changed copy when it changes
    the weights."""
    from recover_attacks import get_attack_class

    cls = get_attack_class(attack)
    return 1 + int("original_model" in cls.requires) + int(cls.changes_weights)


def _training_shape(unlearner: Any, arch: dict[str, Any], n: int, weight_bytes: float,
                    a: Assumptions) -> tuple[TrainingShape, str]:  # fmt: skip
    """The method's training step as unlearn-zoo configures it; the frozen copies it holds are
    its own ``needs().frozen_copies``."""
    method, config = unlearner.name, unlearner.config
    copies = unlearner.needs().frozen_copies
    hidden, inter = int(arch["hidden_size"]), int(arch["intermediate_size"])
    lora = bool(getattr(config, "use_lora", False)) or method == "as"
    frozen = " + frozen copy" if copies else ""
    if method == "rmu":  # trains only mlp.down_proj of 3 layers
        trainable, how = 3 * hidden * inter, "3 layers' mlp.down_proj trained" + frozen
    elif lora:
        trainable = int(n * a.lora_trainable_fraction)
        how = "LoRA/adapter (frozen base, reference = adapters off)" + frozen
    else:
        trainable, how = n, "full fine-tuning, AdamW" + frozen
    shape = TrainingShape(
        n_params=n, n_trainable=trainable, hidden=hidden, layers=int(arch["num_hidden_layers"]),
        heads=int(arch["num_attention_heads"]), vocab=int(arch["vocab_size"]), intermediate=inter,
        weight_bytes=weight_bytes, batch_size=int(config.batch_size), seq_len=int(config.max_length),
        checkpointing=bool(config.gradient_checkpointing), reference_copies=copies,
    )  # fmt: skip
    return shape, how
