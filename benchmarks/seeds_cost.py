"""What ``leakres run --seeds 0,1,2`` costs against one seed, side by side (issue 38 item 2).

Not a unit test. The same tiny setup (SmolLM2-135M-Instruct, the built-in facts, SH + HS, 5 forget
and 3 retain facts, GA for 2 epochs, Probab) run from scratch twice into fresh directories: once
with ``--seed 0`` alone, once with ``--seeds 0,1,2``. The questions, the base model's answers and
the forget/retain selection are computed once in both (the three seeds share them); only the
unlearning, the evaluation and the attack run per seed. Wall and CPU seconds of each run (in this
process, one torch thread), the stages' timings, and the ratio; ``--rounds`` repeats the pair in
alternating order and prints the medians. The issue asks for at most 3.2x.

    OMP_NUM_THREADS=1 HF_HUB_OFFLINE=1 python benchmarks/seeds_cost.py [--rounds 1] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import torch
from _common import cpu_name
from leakres_cli import preset_config, run_benchmark

SETUP = {
    "types": ("SH", "HS"),
    "per_type": 6,
    "sh_pool": 30,
    "n_forget": 5,
    "n_retain": 3,
    "methods": ("ga",),
    "attacks": ("probab",),
    "max_new_tokens": 20,
    "seed": 0,
    "method_overrides": {"ga": {"lr": 1e-4, "epochs": 2}},
}
VARIANTS = {"one seed": (), "three seeds": (0, 1, 2)}


def run_once(seeds: tuple[int, ...], out: Path) -> dict[str, float]:
    """One run from scratch: wall and CPU seconds, and the run's own stage timings."""
    shutil.rmtree(out, ignore_errors=True)
    wall, cpu = time.perf_counter(), time.process_time()
    done = run_benchmark(preset_config("smoke", **SETUP, seeds=seeds), out, report=False)
    timings = done.results["timings_s"]
    return {
        "wall_s": time.perf_counter() - wall,
        "cpu_s": time.process_time() - cpu,
        "shared_s": timings.get("questions", 0.0) + timings.get("base_evaluation", 0.0),
        "per_seed_s": sum(v for k, v in timings.items() if k.startswith("ga:")),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None, help="run directories (default: temp)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    # what a run imports on first use (unlearning, attacks, judges): paid here, by neither variant
    import peft  # noqa: F401
    import recover_attacks  # noqa: F401
    import trl  # noqa: F401
    import unlearn_zoo  # noqa: F401

    root = args.out or Path(tempfile.mkdtemp(prefix="seeds-cost-"))
    measured: dict[str, list[dict[str, float]]] = {name: [] for name in VARIANTS}
    for r in range(args.rounds):
        order = list(VARIANTS) if r % 2 == 0 else list(reversed(VARIANTS))
        for name in order:
            row = run_once(VARIANTS[name], root / name.replace(" ", "-"))
            measured[name].append(row)
            print(f"round {r + 1} {name}: " + ", ".join(f"{k} {v:.1f}" for k, v in row.items()))
    med = {n: {k: statistics.median(x[k] for x in rows) for k in rows[0]} for n, rows in measured.items()}  # fmt: skip
    ratio = {k: med["three seeds"][k] / med["one seed"][k] for k in ("wall_s", "cpu_s")}
    print(json.dumps({
        "cpu": cpu_name(), "cores": os.cpu_count(), "load_avg": os.getloadavg(),
        "torch_threads": torch.get_num_threads(), "rounds": args.rounds,
        "medians": med, "ratio_three_to_one": ratio, "limit": 3.2,
    }, indent=1))  # fmt: skip


if __name__ == "__main__":
    main()
