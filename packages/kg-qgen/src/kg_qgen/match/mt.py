"""MT (modus tollens, (A -> B) and not-B |- not-A) on a two-hop chain.

Chain: target (s1 r1 b) and (b r2 o2). We pick a distractor d != b among the objects of r1
whose r2 value o' differs from o2 and which is not an r1 object of s1. The question states the
conditional A -> B with A = "r1 of s1 is d" and B = "r2 of (r1 of s1) is o'", e.g.
"If the country of citizenship of X were Japan, then the continent of the country of
citizenship of X would be Asia." The negated consequent (not-B) is what the model knows through
the target fact (X's real country is not in Asia), so it must conclude not-A.

The answer is yes/no, and to keep "always answer no" from scoring we ask half of the matches
(seeded) in the negated form ("Can we conclude that ... is not Japan?" -> yes) and half in the
plain form ("Is ... Japan?" -> no). Target = (s1 r1 b); bridge = b (masked: neither b nor o2
appears in the question; d and o' do). ``extra``: ``distractor`` = d, ``distractor_value`` = o',
``polarity`` = "negated" | "plain".
"""

from __future__ import annotations

import random

from kg_qgen.match.base import Match
from kg_qgen.match.index import GraphIndex, MatchConfig, sample_targets

_TRIES = 8  # random distractor draws per chain before giving up


def find(index: GraphIndex, cfg: MatchConfig, rng: random.Random) -> list[Match]:
    out: list[Match] = []
    for f1 in sample_targets(index.facts, rng):
        if cfg.max_matches is not None and len(out) >= cfg.max_matches:
            break
        if cfg.require_unique and not index.is_unique(f1.subject, f1.relation):
            continue
        own = set(index.objects(f1.subject, f1.relation))
        candidates = index.relation_objects(f1.relation)
        for f2 in index.chains(f1, rng, cfg.max_per_target):
            for _ in range(_TRIES):
                d = candidates[rng.randrange(len(candidates))]
                if d in own or d == f2.object or not index.is_unique(d, f2.relation):
                    continue
                d_value = index.objects(d, f2.relation)[0]
                if d_value in (f2.object, f1.subject, f1.object):
                    continue
                negated = rng.random() < 0.5
                out.append(
                    Match(
                        "MT",
                        [f1, f2],
                        target=f1,
                        bridge=f1.object,
                        answer="yes" if negated else "no",
                        answer_is_entity=False,
                        extra={
                            "distractor": d,
                            "distractor_value": d_value,
                            "distractor_fact": [d, f2.relation, d_value],
                            "polarity": "negated" if negated else "plain",
                        },
                    )
                )
                break
    return out[: cfg.max_matches] if cfg.max_matches is not None else out
