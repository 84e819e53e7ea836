"""Issue 34 items 3-5 measured: one-hop shortcuts, alias drops and spread per type, build time.

For each source (MQuAKE-hard dev, the built-in KB, and an ids-only triples file made from MQuAKE
dev's ``orig.triples``/``triples_labeled``: entity labels with their Wikidata ids, relation ids
only, no aliases, relation labels from kg-qgen's shipped table) and each seed, builds
``--per-type`` questions per type and prints per type: items kept, shortcut rejects at build,
shortcuts in the kept set (this tree's :func:`kg_qgen.verify.shortcut.find_shortcut`), top-gold and
top-frame share, repeated (type, facts) items, answer aliases dropped per reason, and the build
time (same process; compare ratios, not seconds, across machines).

"Before" figures: run the build of another revision and judge its sets with this tree's rules:

    PYTHONPATH=<old kg-qgen src> python benchmarks/kgqgen_rules.py --dump before.json
    python benchmarks/kgqgen_rules.py --figures-of before.json

    python benchmarks/kgqgen_rules.py [--mquake PATH] [--seeds 0,1,2] [--per-type 100]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import Counter
from pathlib import Path

from kgqgen_build_time import default_mquake

TYPES = ("SH", "HS", "MP", "LL", "CC", "DS", "MT")


def mquake_ids_triples(mquake: Path, out: Path) -> Path:
    """An ids-only triples JSONL file from MQuAKE's pre-edit chains (module docs)."""
    seen = set()
    with out.open("w", encoding="utf-8") as fh:
        for case in json.loads(mquake.read_text(encoding="utf-8")):
            orig = case["orig"]
            for (s, p, o), (sl, _pl, ol) in zip(
                orig["triples"], orig["triples_labeled"], strict=True
            ):
                if (s, p, o) in seen:
                    continue
                seen.add((s, p, o))
                row = {"subject": sl, "subject_id": s, "relation": p, "object": ol, "object_id": o}
                fh.write(json.dumps(row) + "\n")
    return out


def _sources(mquake: Path, tmp: Path) -> dict:
    import kg_qgen

    triples = mquake_ids_triples(mquake, tmp / "mquake_ids.jsonl")
    return {
        "mquake": kg_qgen.load_source("mquake", str(mquake)),
        "builtin": kg_qgen.load_source("builtin"),
        "ids-triples": kg_qgen.load_source("triples", str(triples)),
    }


def _print(name: str, seed: int, run: dict, graph) -> None:
    from kg_qgen.verify.shortcut import find_shortcut
    from kg_qgen.verify.spread import spread_figures

    questions, counts = run["questions"], run["counts"]
    spread = spread_figures(questions)
    drops: Counter[str] = Counter()
    for c in counts.values():
        drops.update(c.get("aliases_dropped", {}))
    print(
        f"== {name} seed {seed}: build {run['took']:.2f} s, verify ok={run['ok']}, "
        f"answer aliases dropped (kept items) {dict(sorted(drops.items()))}"
    )
    print("type  kept  sc_rejected sc_in_set top_gold top_frame dups")
    for t in TYPES:
        if t not in counts:
            continue
        qs = [q for q in questions if q["type"] == t]
        f = spread.get(t, {})
        print(
            f"{t:<5} {counts[t]['kept']:>4} {counts[t].get('rejected_by', {}).get('shortcut', 0):>12} "
            f"{sum(find_shortcut(q, graph) is not None for q in qs):>9} "
            f"{f.get('top_gold_share') or 0:8.2f} {f.get('top_frame_share') or 0:9.2f} "
            f"{f.get('duplicates') or 0:>4}"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mquake", type=Path, default=default_mquake())
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--per-type", type=int, default=100)
    ap.add_argument("--dump", type=Path, help="write the built sets to this JSON file")
    ap.add_argument("--figures-of", type=Path, help="judge the sets of a --dump file")
    args = ap.parse_args()

    import kg_qgen

    with tempfile.TemporaryDirectory() as tmp:
        sources = _sources(args.mquake, Path(tmp))
    if args.figures_of:
        runs = json.loads(args.figures_of.read_text(encoding="utf-8"))
        for key, run in runs.items():
            name, seed = key.rsplit(":", 1)
            _print(name, int(seed), run, sources[name])
        return
    dumped = {}
    for name, graph in sources.items():
        for seed in (int(s) for s in args.seeds.split(",")):
            t0 = time.perf_counter()
            result = kg_qgen.build(graph, per_type=args.per_type, seed=seed)
            took = time.perf_counter() - t0
            ok = result.verification["ok"] if result.verification else None
            run = {"questions": result.questions, "counts": result.counts, "took": took, "ok": ok}
            dumped[f"{name}:{seed}"] = run
            if not args.dump:
                _print(name, seed, run, graph)
    if args.dump:
        args.dump.write_text(json.dumps(dumped), encoding="utf-8")


if __name__ == "__main__":
    main()
