"""Matching speed of kg-qgen on a synthetic ~100k-triple graph.

Builds a seeded synthetic world (people -> citizenship/birthplace/occupation, cities -> country,
countries -> continent/capital/language, 30% of people with an alias), then runs every matcher
UNCAPPED in total (``max_matches=None``; ``max_per_target`` stays at its default 2) and prints
the time per type, the total and the peak resident memory; then the capped run that
``kg_qgen.build(per_type=100)`` does (300 matches per type). Run:

    python benchmarks/kgqgen_match_100k.py [--people 40000] [--seed 0]

With ``--baseline REF`` (e.g. ``main``) it runs the same measurement ``--repeats`` times on this
checkout and on ``packages/kg-qgen/src`` of git revision REF, alternately, each in a fresh process
(:mod:`_kgqgen_baseline`), and prints the medians side by side with the ratio new / old.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import time
from pathlib import Path

from kg_qgen.graph import KnowledgeGraph
from kg_qgen.match.base import QUESTION_TYPES
from kg_qgen.match.index import GraphIndex, MatchConfig
from kg_qgen.match.registry import find_matches


def synthetic_graph(people: int, seed: int) -> KnowledgeGraph:
    rng = random.Random(seed)
    g = KnowledgeGraph()
    for rid, label in [
        ("P27", "country of citizenship"),
        ("P19", "place of birth"),
        ("P106", "occupation"),
        ("P17", "country"),
        ("P30", "continent"),
        ("P36", "capital"),
        ("P37", "official language"),
    ]:
        g.add_relation(rid, label)
    continents = [f"cont{i}" for i in range(6)]
    languages = [f"lang{i}" for i in range(50)]
    countries = [f"country{i}" for i in range(200)]
    cities = [f"city{i}" for i in range(2000)]
    jobs = [f"job{i}" for i in range(300)]
    for c in countries:
        g.add_entity(c, f"Country {c[7:]}", [f"C{c[7:]} Republic"])
        g.add_fact(c, "P30", rng.choice(continents))
        g.add_fact(c, "P37", rng.choice(languages))
    for i, city in enumerate(cities):
        g.add_fact(city, "P17", countries[i % len(countries)])
    for i, c in enumerate(countries):
        g.add_fact(c, "P36", cities[i])
    for i in range(people):
        p = f"person{i}"
        g.add_entity(p, f"Person {i}", [f"P. {i}"] if rng.random() < 0.3 else [])
        g.add_fact(p, "P27", rng.choice(countries))
        g.add_fact(p, "P19", rng.choice(cities))
        if rng.random() < 0.45:
            g.add_fact(p, "P106", rng.choice(jobs))
    return g


def measure(people: int, seed: int) -> dict:
    """Timings of one run (seconds) and peak RSS (MiB)."""
    t0 = time.perf_counter()
    graph = synthetic_graph(people, seed)
    t1 = time.perf_counter()
    index = GraphIndex.build(graph)
    t2 = time.perf_counter()
    out: dict = {"graph": repr(graph), "build_graph_s": t1 - t0, "index_s": t2 - t1, "types": {}}
    cfg = MatchConfig(max_matches=None)
    for qtype in QUESTION_TYPES:
        s = time.perf_counter()
        matches = find_matches(index, qtype, cfg, seed=seed)
        out["types"][qtype] = {"matches": len(matches), "s": time.perf_counter() - s}
        del matches
    out["uncapped_s"] = sum(v["s"] for v in out["types"].values())
    s = time.perf_counter()
    capped = MatchConfig(max_matches=300)
    out["capped_matches"] = sum(
        len(find_matches(index, t, capped, seed=seed)) for t in QUESTION_TYPES
    )
    out["capped_s"] = time.perf_counter() - s
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out["peak_mib"] = peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024
    return out


def report(m: dict) -> None:
    print(f"graph: {m['graph']} built in {m['build_graph_s']:.2f}s; index in {m['index_s']:.2f}s")
    for qtype, v in m["types"].items():
        print(f"{qtype}: {v['matches']:>7} matches in {v['s']:6.2f}s")
    print(
        f"total matching time (uncapped): {m['uncapped_s']:.2f}s (plus index {m['index_s']:.2f}s)"
    )
    print(
        f"capped run (max_matches=300, as build(per_type=100)): {m['capped_matches']} matches "
        f"in {m['capped_s']:.2f}s"
    )
    print(f"peak resident memory: {m['peak_mib']:.0f} MiB")


def side_by_side(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _kgqgen_baseline import median, run_side_by_side

    base, new = run_side_by_side(
        Path(__file__),
        ["--people", str(args.people), "--seed", str(args.seed)],
        args.baseline,
        args.repeats,
    )
    print(f"{base[0]['graph']}; {args.repeats} alternating runs each, medians (seconds)")
    print(f"{'':<22}{args.baseline:>12}{'this tree':>12}{'new/old':>10}")
    rows = [("index", "index_s")]
    rows += [(f"{t} uncapped", t) for t in QUESTION_TYPES]
    rows += [
        ("all uncapped", "uncapped_s"),
        ("index + all uncapped", "sum"),
        ("capped (300/type)", "capped_s"),
    ]
    for name, key in rows:

        def value(m: dict, key: str = key) -> float:
            if key == "sum":
                return m["index_s"] + m["uncapped_s"]
            return m["types"][key]["s"] if key in m["types"] else m[key]

        old_v, new_v = median([value(m) for m in base]), median([value(m) for m in new])
        print(f"{name:<22}{old_v:>12.2f}{new_v:>12.2f}{new_v / old_v:>10.2f}")
    for t in QUESTION_TYPES:
        print(f"{t} matches: {base[0]['types'][t]['matches']} -> {new[0]['types'][t]['matches']}")
    print(
        f"peak RSS (MiB): {median([m['peak_mib'] for m in base]):.0f} -> "
        f"{median([m['peak_mib'] for m in new]):.0f}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--people", type=int, default=40000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--baseline", default=None, help="git revision to compare with, e.g. main")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        print(json.dumps(measure(args.people, args.seed)))
    elif args.baseline:
        side_by_side(args)
    else:
        report(measure(args.people, args.seed))


if __name__ == "__main__":
    main()
