"""Issue 34 items 3-5 measured: one-hop shortcuts, alias drops and spread per type, build time.

For each source (MQuAKE-hard dev, the built-in KB, and an ids-only triples file made from MQuAKE
dev's ``orig.triples``/``triples_labeled``: entity labels with Wikidata ids, relation ids only, no
aliases, relation labels from kg-qgen's shipped table) and each seed, builds ``--per-type``
questions per type and prints per type: items kept, shortcut rejects at build, shortcuts in the
kept set (``verify``), top-gold and top-frame share, duplicate (type, facts) pairs, and the
aliases dropped per reason (the build's ``alias_drops``), with the build time. ``--rules off`` runs
the same build with the three rules switched off (the old behaviour) for the "before" column.

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


def _figures(result, graph) -> dict[str, dict]:
    from kg_qgen.verify.shortcut import find_shortcut
    from kg_qgen.verify.spread import spread_figures

    spread = spread_figures(result.questions)
    rows: dict[str, dict] = {}
    for t, c in result.counts.items():
        qs = [q for q in result.questions if q["type"] == t]
        rows[t] = {
            "kept": c["kept"],
            "shortcut_rejected": c.get("rejected_by", {}).get("shortcut", 0),
            "shortcuts_kept": sum(find_shortcut(q, graph) is not None for q in qs),
            **{k: spread.get(t, {}).get(k) for k in ("top_gold_share", "top_frame_share", "duplicates")},
        }
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mquake", type=Path, default=default_mquake())
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--per-type", type=int, default=100)
    ap.add_argument("--rules", choices=("on", "off"), default="on")
    args = ap.parse_args()

    import kg_qgen
    from kg_qgen import rules_switch

    rules_switch.ENABLED = args.rules == "on"
    with tempfile.TemporaryDirectory() as tmp:
        triples = mquake_ids_triples(args.mquake, Path(tmp) / "mquake_ids.jsonl")
        sources = {
            "mquake": kg_qgen.load_source("mquake", str(args.mquake)),
            "builtin": kg_qgen.load_source("builtin"),
            "ids-triples": kg_qgen.load_source("triples", str(triples)),
        }
    for name, graph in sources.items():
        for seed in (int(s) for s in args.seeds.split(",")):
            t0 = time.perf_counter()
            result = kg_qgen.build(graph, per_type=args.per_type, seed=seed)
            took = time.perf_counter() - t0
            drops = Counter((result.alias_drops or {}).get("by_reason", {}))
            ok = result.verification["ok"] if result.verification else None
            print(f"== {name} seed {seed}: build {took:.2f} s, verify ok={ok}, alias drops {dict(drops)}")
            print("type  kept  sc_rej sc_kept top_gold top_frame dups")
            for t, row in _figures(result, graph).items():
                print(
                    f"{t:<5} {row['kept']:>4} {row['shortcut_rejected']:>7} {row['shortcuts_kept']:>7} "
                    f"{row['top_gold_share'] or 0:8.2f} {row['top_frame_share'] or 0:9.2f} "
                    f"{row['duplicates'] or 0:>4}"
                )


if __name__ == "__main__":
    main()
