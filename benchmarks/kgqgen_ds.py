"""DS figures of kg-qgen builds (issue 34 item 2): one option left, position rules, spread.

For each source (MQuAKE-hard dev, the built-in KB) and seed, builds every type at 100 per type
(the default build, wording choice included) and prints for its DS set: matches and kept items,
the ``ds_positions`` rules (last survivor, first option, gold slot) against chance, the gold
slot shares, the top gold's and the top frame's share, repeated (type, facts), DS self-BLEU
(``kg-qgen stats``' definition, seeded), whether ``verify`` passed, and the build's wall time
(same process; compare across rows, not across machines).

    python benchmarks/kgqgen_ds.py [--mquake PATH] [--seeds 0,1,2]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path

from kgqgen_build_time import default_mquake


def _row(name: str, seed: int, result, took: float) -> str:
    from kg_qgen.stats import self_bleu
    from kg_qgen.verify.ds_positions import ds_position_check

    ds = [q for q in result.questions if q["type"] == "DS"]
    pos = ds_position_check(ds) or {}
    rules = pos.get("rules", {})
    gold = Counter(q["answer"] for q in ds).most_common(1)[0]
    frame = Counter(q["template"] for q in ds).most_common(1)[0]
    facts = Counter(tuple(tuple(p.values()) for p in q["premise_ids"]) for q in ds)
    bleu = self_bleu([q["question"] for q in ds], seed=seed)
    return (
        f"{name:<8}{seed:>4}{result.counts['DS']['matches']:>8}{len(ds):>6}  "
        f"{pos.get('chance', float('nan')):.3f} {rules.get('last_survivor', 0):.3f} "
        f"{rules.get('first_option', 0):.3f} {rules.get('gold_slot', 0):.3f}  "
        f"{pos.get('slot_shares')}  {gold[1] / len(ds):.2f} ({gold[0]})  "
        f"{frame[1] / len(ds):.2f} ({frame[0]})  {max(facts.values())}  {bleu:.3f}  "
        f"{result.verification['ok']!s:>5}  {took:5.2f}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mquake", type=Path, default=default_mquake())
    ap.add_argument("--seeds", default="0,1,2")
    args = ap.parse_args()

    import kg_qgen

    print(
        "source  seed matches  kept  chance last  first slot   slot shares  top gold  "
        "top frame  max (type,facts)  self-BLEU  verify  build_s"
    )
    for name, source, path in (
        ("mquake", "mquake", str(args.mquake)),
        ("builtin", "builtin", None),
    ):
        graph = kg_qgen.load_source(source, path)
        for seed in (int(s) for s in args.seeds.split(",")):
            t0 = time.perf_counter()
            result = kg_qgen.build(graph, per_type=100, seed=seed)
            print(_row(name, seed, result, time.perf_counter() - t0), flush=True)


if __name__ == "__main__":
    main()
