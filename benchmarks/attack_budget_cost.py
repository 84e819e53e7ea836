"""The cost of a Probab ladder (``--attack-budgets probab=1,2,5,10,20``) beside one N = 20 cell,
side by side on the same tiny setup (issue 38 wants the ladder at most 1.3x the single cell).

Not a unit test. Runs a tiny `leakres run` configuration (the CLI's default SmolLM2-135M-
Instruct, built-in facts, GA; sizes below) up to the unlearned model, then on the same unlearned
model and the same S_suc, alternately (so machine load affects both alike):

* single: the attack cell with ``num_samples = 20`` (one batched draw, judged any-of-20);
* ladder: the ladder's one cell (the same draw, judged sample by sample) plus the curve scoring
  of every rung 1, 2, 5, 10, 20 (leak-metrics' any_of_n_curve with its bootstrap CIs).

Prints wall and CPU seconds of each, their ratios per repeat and the median ratio, with the CPU,
torch threads and sizes.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/attack_budget_cost.py [--out DIR] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import uuid
from pathlib import Path

import torch
from _common import cpu_name
from leakres_cli.config.run_config import preset_config
from leakres_cli.stages import attacking
from leakres_cli.stages.budget_ladders import SampleVerdicts
from leakres_cli.stages.curve_scores import curve_block
from leakres_cli.stages.pipeline import Benchmark, UnlearnedModel
from leakres_cli.stages.results import selection
from leakres_cli.stages.scoring import successfully_unlearned_ids

LADDER = (1, 2, 5, 10, 20)
SIZES = {"n_forget": 16, "n_retain": 4, "per_type": 16, "sh_pool": 48}


def timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=None, help="run directory (default: a temp)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    torch.set_num_threads(1)
    out = args.out or Path(tempfile.mkdtemp(prefix="attack-budget-cost-"))
    cfg = preset_config("smoke", seed=0, **SIZES)
    bench = Benchmark(cfg, out, progress=False)
    data = bench.build_questions()
    base = bench.base_evaluation(data["questions"], data.get("sh_reserve", []))
    chosen = selection(cfg, data, base)
    unlearned = UnlearnedModel(bench, "ga", chosen.forget, chosen.retain)
    ev = bench.evaluate_method("ga", chosen.by_id, base, unlearned)
    s_suc = successfully_unlearned_ids(base, ev, chosen.scored)
    targets = [chosen.by_id[i] for ids in s_suc.values() for i in ids]
    relearn = attacking.relearn_data(chosen.retain, chosen.scored["SH"])
    unlearned()  # trained before timing
    hops = {
        "SH": [i for i in s_suc.get("SH", [])],
        "MH": [i for t, ids in s_suc.items() if t != "SH" for i in ids],
    }
    boot = {"seed": cfg.seed, "n_resamples": cfg.bootstrap}
    print(f"CPU: {cpu_name()}; torch threads {torch.get_num_threads()}; sizes {SIZES}; "
          f"S_suc {len(targets)} items ({ {h: len(v) for h, v in hops.items()} })")  # fmt: skip

    def single(tag: str):
        return attacking.attack(
            bench, "ga", "probab", targets, relearn, chosen.context, unlearned,
            cell=f"bench/single-{tag}", budget={"num_samples": 20},
        )  # fmt: skip

    def ladder(tag: str):
        name = f"bench/ladder-{tag}"
        cell = attacking.attack(
            bench, "ga", "probab", targets, relearn, chosen.context, unlearned, cell=name,
            budget={"num_samples": 20}, judged=SampleVerdicts(bench, name),
        )  # fmt: skip
        runs = [(20, LADDER, cell)]
        return curve_block("probab", runs, runs, hops, hops, {"SH": 1.0, "MH": 1.0}, boot)

    ratios_wall, ratios_cpu = [], []
    for rep in range(args.repeats):
        tag = uuid.uuid4().hex[:8]  # fresh cells: nothing is reused between repeats
        first, second = (single, ladder) if rep % 2 == 0 else (ladder, single)
        timings = {}
        for fn in (first, second):
            _, wall, cpu = timed(lambda fn=fn, tag=tag: fn(tag))
            timings[fn.__name__] = (wall, cpu)
        (sw, sc), (lw, lc) = timings["single"], timings["ladder"]
        ratios_wall.append(lw / sw)
        ratios_cpu.append(lc / sc)
        print(f"repeat {rep}: single N=20 {sw:.1f} s wall / {sc:.1f} s CPU; ladder "
              f"{'/'.join(map(str, LADDER))} {lw:.1f} s wall / {lc:.1f} s CPU; ratio "
              f"{lw / sw:.2f} wall, {lc / sc:.2f} CPU")  # fmt: skip
    print(
        f"median ratio ladder/single: {statistics.median(ratios_wall):.2f} wall, "
        f"{statistics.median(ratios_cpu):.2f} CPU ({args.repeats} repeats, order alternated)"
    )


if __name__ == "__main__":
    main()
