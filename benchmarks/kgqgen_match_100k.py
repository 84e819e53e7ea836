"""Matching speed of kg-qgen on a synthetic ~100k-triple graph.

Builds a seeded synthetic world (people -> citizenship/birthplace/occupation, cities -> country,
countries -> continent/capital/language, 30% of people with an alias), then runs every matcher
UNCAPPED in total (``max_matches=None``; ``max_per_target`` stays at its default 2) and prints
the time per type, the total and the peak resident memory; then the capped run that
``kg_qgen.build(per_type=100)`` does (300 matches per type). Run:

    python benchmarks/kgqgen_match_100k.py [--people 40000] [--seed 0]
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import time

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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--people", type=int, default=40000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    t0 = time.perf_counter()
    graph = synthetic_graph(args.people, args.seed)
    t1 = time.perf_counter()
    index = GraphIndex.build(graph)
    t2 = time.perf_counter()
    print(f"graph: {graph!r} built in {t1 - t0:.2f}s; index in {t2 - t1:.2f}s")
    cfg = MatchConfig(max_matches=None)
    total = 0.0
    for qtype in QUESTION_TYPES:
        s = time.perf_counter()
        matches = find_matches(index, qtype, cfg, seed=args.seed)
        dt = time.perf_counter() - s
        total += dt
        print(f"{qtype}: {len(matches):>7} matches in {dt:6.2f}s")
        del matches
    print(f"total matching time (uncapped): {total:.2f}s (plus index {t2 - t1:.2f}s)")
    # what kg_qgen.build does by default for per_type=100: 300 matches per type
    s = time.perf_counter()
    capped = MatchConfig(max_matches=300)
    n = sum(len(find_matches(index, t, capped, seed=args.seed)) for t in QUESTION_TYPES)
    print(
        f"capped run (max_matches=300, as build(per_type=100)): {n} matches in "
        f"{time.perf_counter() - s:.2f}s"
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    peak_mib = peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024
    print(f"peak resident memory: {peak_mib:.0f} MiB")


if __name__ == "__main__":
    main()
