"""The cost of teaching theta_p (``leakres run --base tuned|taught``) against one unlearning cell,
side by side in one process (issue 36 item 6).

Not a unit test. Reads the teaching corpus and settings of a finished ``--base tuned|taught`` run
(``RUN/cache/base-model/<key>/corpus.jsonl`` and results.json ``base_model``: the corpus exactly as
the run built it, on the facts the run protected), teaches it again to the default model with
those settings (unlearn-zoo ``teach``), then runs one unlearning cell of the same run size (GA at unlearn-zoo's defaults on 48 facts of the built-in knowledge base, the
``smoke``/``types`` presets' cell) and prints, for both: wall and CPU seconds, optimizer steps,
examples, training tokens (padding excluded) and seconds per step. The CPU, the torch threads and
the load average are printed with the figures: compare within one run only.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/teach_cost.py RUN_DIR [--threads 1]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import torch
from _common import DEFAULT_MODEL, cpu_name, forget_retain, load


def _timed(fn):  # type: ignore[no-untyped-def]
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def teaching(run_dir: Path, model, tokenizer):  # type: ignore[no-untyped-def]
    from unlearn_zoo import TeachSettings, teach

    block = json.loads((run_dir / "results.json").read_text())["base_model"]
    folder = run_dir / "cache" / "base-model" / block["cache"]["key"]
    examples = [json.loads(line) for line in (folder / "corpus.jsonl").read_text().splitlines()]
    settings = dict(block["settings"])
    settings["lora_target_modules"] = tuple(settings["lora_target_modules"])
    done, wall, cpu = _timed(lambda: teach(model, tokenizer, examples, TeachSettings(**settings)))
    return {"what": f"teach ({block['kind']}: {block['corpus']['counts']})", "wall": wall,
            "cpu": cpu, "steps": done.record["steps"], "examples": len(examples),
            "completion_tokens": done.record["n_completion_tokens"]}  # fmt: skip


def unlearning(model, tokenizer, n_forget: int):  # type: ignore[no-untyped-def]
    from unlearn_zoo import default_overrides, get_unlearner

    forget, retain = forget_retain(n_forget)
    n_params = sum(p.numel() for p in model.parameters())
    method = get_unlearner("ga", **default_overrides("ga", n_params))
    done, wall, cpu = _timed(
        lambda: method.unlearn(model, tokenizer, forget, retain, progress=False)
    )
    return {"what": f"unlearn (GA, unlearn-zoo defaults, {n_forget} forget facts)", "wall": wall,
            "cpu": cpu, "steps": done.record["steps"], "examples": n_forget,
            "completion_tokens": None}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("run_dir", type=Path, help="a finished --base tuned|taught run directory")
    ap.add_argument("--model", default=str(DEFAULT_MODEL))
    ap.add_argument("--n-forget", type=int, default=48)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    tokenizer, model = load(args.model)
    rows = [teaching(args.run_dir, model, tokenizer), unlearning(model, tokenizer, args.n_forget)]
    print(f"CPU {cpu_name()}, {torch.get_num_threads()} torch thread(s), float32, "
          f"load average at the end {os.getloadavg()[0]:.1f}")  # fmt: skip
    print("| cell | wall s | CPU s | steps | s / step | examples | completion tokens |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        per = r["wall"] / r["steps"] if r["steps"] else float("nan")
        print(f"| {r['what']} | {r['wall']:.0f} | {r['cpu']:.0f} | {r['steps']} | {per:.1f} | "
              f"{r['examples']} | {r['completion_tokens'] or '-'} |")  # fmt: skip
    print(f"teaching / unlearning wall time: {rows[0]['wall'] / rows[1]['wall']:.1f}x")


if __name__ == "__main__":
    main()
