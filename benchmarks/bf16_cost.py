"""bf16 against fp32 on this CPU, side by side in one process (issue 26 item 5).

Not a unit test. Three precisions of the default model (SmolLM2-135M-Instruct), one torch thread:

- ``float32``: the default.
- ``bfloat16``: bf16 weights (what ``leakres run --dtype bfloat16`` loads; training updates the
  bf16 weights themselves).
- ``autocast``: fp32 weights (the master copy) with ``torch.autocast("cpu", dtype=bfloat16)``
  around the step / the decoding, so matrix products run in bf16.

Training: GA's optimizer step (unlearn-zoo, the yardstick of ``training_step_cost.py``, same
method: median of ``step_times_s`` without the first step) on built-in facts, batch 4, max length
96. Decoding: the engine on the first 64 MQuAKE dev single-hop questions, greedy, 24 tokens, at
batch 32 and 64, CPU seconds, and how many answers equal float32's. ``--rounds`` repeats every
measurement interleaved (float32, bfloat16, autocast, float32, ...); medians are printed.

    OMP_NUM_THREADS=1 HF_HUB_OFFLINE=1 python benchmarks/bf16_cost.py [--rounds 2]
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time

import torch
from _common import (
    DEFAULT_MODEL,
    cpu_name,
    cpuinfo,
    forget_retain,
    load_model,
    median_step,
    unlearner,
)
from engine_speed import mquake_single_hops
from recover_attacks import format_prompt
from recover_attacks.engine import DecodingConfig, LocalEngine
from transformers import AutoTokenizer

PRECISIONS = ("float32", "bfloat16", "autocast")


def flags() -> list[str]:
    have = (cpuinfo("flags") or "").split()
    return [f for f in ("avx512_bf16", "amx_bf16") if f in have]


def load(path: str, precision: str):
    return load_model(path, torch.bfloat16 if precision == "bfloat16" else torch.float32)


def autocast(precision: str):
    if precision == "autocast":
        return torch.autocast("cpu", dtype=torch.bfloat16)
    return contextlib.nullcontext()


def ga_step(path: str, tok, precision: str, forget, retain, steps: int) -> float:
    model = load(path, precision)
    n_params = sum(p.numel() for p in model.parameters())
    trainer = unlearner("ga", n_params, 4, 96, max_steps=steps)
    with autocast(precision):
        result = trainer.unlearn(model, tok, forget, retain, output_dir=None, progress=False)
    return median_step(result)


def decode(model, tok, prompts, rows: int, precision: str) -> tuple[list[str], float]:
    engine = LocalEngine(model, tok, max_batch_size=rows)
    cpu = time.process_time()
    with autocast(precision):
        texts = [r[0].strip() for r in engine.complete(prompts, DecodingConfig(max_new_tokens=24))]
    return texts, time.process_time() - cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default=str(DEFAULT_MODEL))
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--skip-training", action="store_true")
    args = ap.parse_args()
    torch.set_num_threads(1)
    tok = AutoTokenizer.from_pretrained(args.model)
    forget, retain = forget_retain(4 * args.steps)
    prompts = [format_prompt(tok, q) for q in mquake_single_hops(64)]
    print(
        f"cpu: {cpu_name() or 'unknown'}; bf16 features {flags() or 'none'}; "
        f"torch {torch.__version__}; 1 thread; 64 questions, 24 tokens; "
        f"GA batch 4, max_length 96, {args.steps} steps"
    )
    models = {p: load(args.model, p) for p in PRECISIONS}
    train = {p: [] for p in PRECISIONS}
    dec = {(p, r): [] for p in PRECISIONS for r in (32, 64)}
    answers: dict[tuple[str, int], list[str]] = {}
    for _ in range(args.rounds):
        for p in PRECISIONS:
            if not args.skip_training:
                train[p].append(ga_step(args.model, tok, p, forget, retain, args.steps))
            for rows in (32, 64):
                texts, cpu = decode(models[p], tok, prompts, rows, p)
                dec[(p, rows)].append(cpu)
                answers[(p, rows)] = texts
    ref_train = statistics.median(train["float32"]) if train["float32"] else None
    print("| precision | GA s/step | x fp32 speed | decode CPU s b32 | x | decode CPU s b64 | x | answers = fp32 (b64) |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for p in PRECISIONS:
        t = statistics.median(train[p]) if train[p] else None
        d32, d64 = (statistics.median(dec[(p, r)]) for r in (32, 64))
        f32, f64 = (statistics.median(dec[("float32", r)]) for r in (32, 64))
        same = sum(a == b for a, b in zip(answers[(p, 64)], answers[("float32", 64)], strict=True))
        ts = f"{t:.3f} | {ref_train / t:.2f}" if t else "n/a | n/a"
        print(
            f"| {p} | {ts} | {d32:.1f} | {f32 / d32:.2f} | {d64:.1f} | {f64 / d64:.2f} | {same}/64 |"
        )


if __name__ == "__main__":
    main()
