"""Teaching's step cost: the fused AdamW and the batch's common prompt prefix run once (unlearn-zoo
``TeachSettings.optim`` and ``shared_prefix``) against the plain step, side by side in one process
(issue 36 item 6).

Not a unit test. Teaches the default model the same examples with each setting, twice, in turn
(so that none gets a warmer cache or a quieter minute): kg-qgen's
teaching corpus of the `taught` preset's fictitious KB (one statement and one question per fact,
the entities' other names), the first ``--examples`` of it, batch ``--batch``. Prints seconds per
optimizer step of each, the ratio, the largest relative difference between the two loss curves
and between the taught weights, with the CPU, torch threads and dtype.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/teach_prefix.py [--examples 96] [--batch 4]
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import replace

import torch
from _common import DEFAULT_MODEL, cpu_name, load

KB = "small,persons=40,cities_per_country=3,alias_share=0.8"


def corpus(n: int) -> list[dict[str, object]]:
    import kg_qgen
    from kg_qgen.teaching import teaching_corpus

    graph = kg_qgen.load_source("fictional", KB)
    examples = teaching_corpus(graph, statements=1, questions=1, types=(), seed=0).examples
    return examples[:n]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=str(DEFAULT_MODEL))
    parser.add_argument("--examples", type=int, default=96)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    from unlearn_zoo import TeachSettings, teach

    tokenizer, model = load(args.model)
    examples = corpus(args.examples)
    base = TeachSettings(lr=3e-4, epochs=1.0, batch_size=args.batch, max_length=192, seed=0)
    arms = {
        "adamw_torch, plain forward": replace(base, optim="adamw_torch", shared_prefix=False),
        "adamw_torch_fused, plain forward": replace(base, shared_prefix=False),
        "adamw_torch_fused, shared prefix (default)": base,
    }
    results: dict[str, list[tuple[float, float, object]]] = {name: [] for name in arms}
    for name in list(arms) * 2:
        wall, cpu = time.perf_counter(), time.process_time()
        done = teach(model, tokenizer, examples, arms[name])
        per_step = (time.perf_counter() - wall) / done.record["steps"]
        results[name].append((per_step, (time.process_time() - cpu) / done.record["steps"], done))
    first, *_, last = arms
    plain, shared_run = results[first][0][2], results[last][0][2]
    curve_diff = max(
        abs(a["loss"] - b["loss"]) / abs(a["loss"])
        for a, b in zip(plain.curve, shared_run.curve, strict=True)  # type: ignore[attr-defined]
    )
    weight_diff = max(
        float((a - b).norm() / a.norm().clamp(min=1e-12))
        for a, b in zip(
            plain.model.state_dict().values(),  # type: ignore[attr-defined]
            shared_run.model.state_dict().values(),  # type: ignore[attr-defined]
            strict=True,
        )
    )
    print(
        f"CPU: {cpu_name()}; torch threads {torch.get_num_threads()}; float32; load {os.getloadavg()}"
    )
    print(f"{len(examples)} examples, batch {args.batch}, {plain.record['steps']} steps")  # type: ignore[attr-defined]
    reference = sum(w for w, _, _ in results[first])
    for name, rows in results.items():
        walls = ", ".join(f"{w:.2f}" for w, _, _ in rows)
        cpus = ", ".join(f"{c:.2f}" for _, c, _ in rows)
        ratio = sum(w for w, _, _ in rows) / reference
        print(f"{name}: s/step wall {walls}; CPU {cpus}; {ratio:.2f}x the first")
    print(f"first vs last, loss curves: largest relative difference {curve_diff:.2e}")
    print(
        f"first vs last, taught weights: largest relative difference per tensor {weight_diff:.2e}"
    )


if __name__ == "__main__":
    main()
