"""Variety of a kg-qgen build with and without the wording choice, side by side in one run.

For each seed, builds MQuAKE-hard-dev (100 per type, all types, template generator) twice in this
process: ``wording_draws=1`` (every question keeps its first draw) and the default (16 draws, the
wording sharing the fewest n-grams with the set kept, :mod:`kg_qgen.wording_variety`). Prints
self-BLEU per type and overall (``kg-qgen stats``' definition, 500 sampled, seeded), the source's
own questions' figure and the ratio to it, verify's MT text-only classifier accuracy, whether the set
verifies, and the build time of each (same process, alternating: compare the ratio, not the
seconds, across machines).

    python benchmarks/kgqgen_variety.py [--mquake PATH] [--seeds 0,1,2] [--draws 16]
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path

from kgqgen_build_time import default_mquake


def _cpu() -> str:
    for line in Path("/proc/cpuinfo").read_text(errors="replace").splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def _row(result, seed: int) -> dict:
    from kg_qgen.stats import self_bleu

    by_type: dict[str, list[str]] = {}
    for q in result.questions:
        by_type.setdefault(q["type"], []).append(q["question"])
    row = {t: self_bleu(texts, seed=seed) for t, texts in by_type.items()}
    row["all"] = self_bleu([q["question"] for q in result.questions], seed=seed)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mquake", type=Path, default=default_mquake())
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--draws", type=int, default=16)
    args = ap.parse_args()

    import kg_qgen
    from kg_qgen.stats import self_bleu

    graph = kg_qgen.load_source("mquake", str(args.mquake))
    source = self_bleu([q["question"] for q in graph.source_questions], seed=0)
    print(f"CPU: {_cpu()}; MQuAKE file {args.mquake}")
    print(f"source's own {len(graph.source_questions)} questions: self-BLEU {source:.3f}")
    types = ("SH", "HS", "MP", "LL", "CC", "DS", "MT")
    print(
        "seed draws "
        + " ".join(f"{t:>6}" for t in (*types, "all"))
        + "  ratio  MT-clf verify build_s"
    )
    for seed in (int(s) for s in args.seeds.split(",")):
        for draws in (1, args.draws):
            t0 = time.perf_counter()
            result = kg_qgen.build(graph, per_type=100, seed=seed, wording_draws=draws)
            took = time.perf_counter() - t0
            row = _row(result, seed)
            cells = " ".join(f"{row.get(t, float('nan')):6.3f}" for t in (*types, "all"))
            mt_text = (result.verification or {}).get("set_checks", {}).get("mt_text") or {}
            rule = (mt_text.get("classifier") or {}).get("accuracy") or float("nan")
            ok = result.verification["ok"] if result.verification else None
            print(
                f"{seed:>4} {draws:>5} {cells}  {row['all'] / source:5.2f}  {rule:7.3f} "
                f"{ok!s:>6} {took:7.2f}"
            )


if __name__ == "__main__":
    main()
