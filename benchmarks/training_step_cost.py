"""Per-step training cost of every unlearn-zoo method, side by side in one run (issue 26 item 2).

Not a unit test. Trains each method on the same forget/retain facts of the built-in knowledge base
with the same batch size, sequence length and step count, on the default model, and prints the
median seconds per optimizer step (the first step, which pays one-off set-up, is left out), its
ratio to GA's step (the yardstick: one forward and one backward), and the forward passes each
method's loss needs. The CPU model and dtype are printed with the figures; compare ratios only
within one run.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/training_step_cost.py [--steps 8] [--methods ga,tv]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import time
from collections.abc import Iterator

import torch
from _common import DEFAULT_MODEL, cpu_name, forget_retain, load, median_step, unlearner


@contextlib.contextmanager
def trl_loss(enabled: bool) -> Iterator[None]:
    """Route unlearn-zoo's SFT step through TRL's ``SFTTrainer.compute_loss`` (the old path)."""
    if not enabled:
        yield
        return
    import transformers
    from trl import SFTTrainer

    saved = transformers.Trainer.compute_loss
    transformers.Trainer.compute_loss = SFTTrainer.compute_loss  # type: ignore[method-assign]
    try:
        yield
    finally:
        transformers.Trainer.compute_loss = saved  # type: ignore[method-assign]


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--model", default=str(DEFAULT_MODEL))
    ap.add_argument(
        "--methods",
        default="ga,npo,graddiff,rmu,tv,palu,as,tv-trl-loss",
        help="unlearn-zoo names; tv-trl-loss = TV with TRL's own SFTTrainer.compute_loss (fused LM "
        "head, entropy and token-accuracy metrics), the step unlearn-zoo used before it called "
        "transformers' loss, measured beside it",
    )
    ap.add_argument("--steps", type=int, default=8, help="optimizer steps per method")
    ap.add_argument("--batch-size", type=int, default=4)
    ap.add_argument("--max-length", type=int, default=96)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--set", action="append", default=[], help="METHOD.key=value override")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    tok, model = load(args.model)
    n_params = sum(p.numel() for p in model.parameters())
    forget, retain = forget_retain(args.batch_size * args.steps)
    extra: dict[str, dict[str, object]] = {}
    for item in args.set:
        key, value = item.split("=", 1)
        method, field = key.split(".", 1)
        extra.setdefault(method, {})[field] = json.loads(value)
    cpu = cpu_name() or "unknown"
    print(f"cpu: {cpu}; torch {torch.__version__}; threads {args.threads}; dtype float32")
    print(
        f"model {args.model} ({n_params / 1e6:.0f}M params); batch {args.batch_size}, "
        f"max_length {args.max_length}, {args.steps} steps per method\n"
    )
    rows = []
    for label in args.methods.split(","):
        method = label.removesuffix("-trl-loss")
        overrides = extra.get(method, {})
        trainer = unlearner(method, n_params, args.batch_size, args.max_length, **overrides)
        with trl_loss(label.endswith("-trl-loss")):
            start = time.perf_counter()
            result = trainer.unlearn(model, tok, forget, retain, output_dir=None, progress=False)
            wall = time.perf_counter() - start
        rows.append((label, len(result.record["step_times_s"]), median_step(result), wall))
    ga = next((r[2] for r in rows if r[0] == "ga"), None)
    print("| method | steps | median s/step | x GA's step | wall s (incl. set-up) |")
    print("|---|---|---|---|---|")
    for method, steps, median, wall in rows:
        ratio = f"{median / ga:.2f}" if ga else "n/a"
        print(f"| {method} | {steps} | {median:.3f} | {ratio} | {wall:.1f} |")


if __name__ == "__main__":
    main()
