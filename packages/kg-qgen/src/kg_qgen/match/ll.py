"""LL (Leibniz's law, x = y and A(x) |- A(y)): a fact asked through an alias of its subject.

Target = the fact (s r o); answer = o; bridge = None; ``extra["alias"]`` = the alias of s the
question uses (the label of s does not appear). Aliases come from the graph (Wikidata aliases;
in MQuAKE the previous hop's ``answer_alias``). Aliases that normalise to the label, are shorter
than 2 letters/digits or contain the answer are skipped.
"""

from __future__ import annotations

import random

from kg_qgen.match.base import Match
from kg_qgen.match.index import GraphIndex, MatchConfig, sample_targets
from kg_qgen.textnorm import contains_phrase, normalize


def usable_aliases(index: GraphIndex, subject: str, answer: str) -> list[str]:
    g = index.graph
    label = normalize(g.label(subject))
    banned = [normalize(x) for x in (g.label(answer), *g.aliases(answer))]
    out = []
    for alias in g.aliases(subject):
        norm = normalize(alias)
        if len(norm.replace(" ", "")) < 2 or norm == label:
            continue
        if any(b and contains_phrase(norm, b) for b in banned):
            continue
        out.append(alias)
    return out


def find(index: GraphIndex, cfg: MatchConfig, rng: random.Random) -> list[Match]:
    out: list[Match] = []
    for f in sample_targets(index.facts, rng):
        if cfg.max_matches is not None and len(out) >= cfg.max_matches:
            break
        if not index.graph.aliases(f.subject):
            continue
        if cfg.require_unique and not index.is_unique(f.subject, f.relation):
            continue
        aliases = usable_aliases(index, f.subject, f.object)
        if not aliases:
            continue
        for alias in rng.sample(aliases, min(cfg.max_per_target, len(aliases))):
            out.append(
                Match("LL", [f], target=f, bridge=None, answer=f.object, extra={"alias": alias})
            )
    return out[: cfg.max_matches] if cfg.max_matches is not None else out
