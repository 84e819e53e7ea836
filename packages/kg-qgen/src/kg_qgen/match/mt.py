"""MT (modus tollens, (A -> B) and not-B |- not-A) as a two-option item; the gold needs a fact.

Chain: the target (s r1 k), the fact to forget, and (k r2 n_k). A distractor m of the gold's
class (another r1 object, the bridge of another chain of the same relation pair) has its own
(m r2 n_m), n_m != n_k. The question states two conditionals in the same wording shape, in a
seeded order:

    "If V was developed by M, then V's developer's CEO is N_M.
     If V was developed by K, then V's developer's CEO is N_K."

and asks which of M and K (the options, in their own seeded order) is the r1 of s. Both
conditionals are true of the source's world (each is the fact (x r2 n_x)). Which consequent is
false is NOT stated: it comes from knowing the true chain (the r2 of the r1 of s is n_k), and
modus tollens on the false one (not n_m, so not m) leaves the gold k. Nothing in the wording
marks the gold: both options stand in the same places of the same shape, each under its own
conditional, and the stated order of the conditionals and of the options are drawn apart.
(Rounds one to three asked yes/no about the one stated antecedent, which was always the false
one, so the question's polarity read the answer: 122 of 124 on a full MQuAKE build.)

Names say nothing either: within a relation pair the chains are paired so that every kept chain's
bridge is the distractor of exactly one other chain (sorted by the gold's r2 value and shifted by
half, so no chain meets its own r2 value), so each name is a gold as often as a distractor. No
gold takes more than :data:`GOLD_SHARE` of the chains before pairing where the source has enough
golds (a hub country would otherwise take most items).

Target = (s r1 k); bridge = None (the gold is an option, as in DS); answer = k; premises = [target,
(k r2 n_k), (m r2 n_m)]. ``extra``: ``options`` (entity ids in display order), ``distractor``
(m), ``distractor_fact`` ([m, r2, n_m]), ``conditionals`` ([[candidate, consequent], ...] in
stated order).
"""

from __future__ import annotations

import random
from collections import Counter

from kg_qgen.graph import Fact
from kg_qgen.match.base import Match, note
from kg_qgen.match.index import GraphIndex, MatchConfig, sample_targets

GOLD_SHARE = 0.25  # most chains one gold may take before pairing (kept sets are checked at 0.3)

NO_PARTNER = "no chain of the relation pair with another second-hop value to mirror"
GOLD_CAP = "the gold already has its share of the chains"
NOT_SINGLE = "the second hop is not single-valued for the bridge"
UNUSABLE = "the mirrored distractor is an r1 object of the subject or shares a name"


def find(
    index: GraphIndex, cfg: MatchConfig, rng: random.Random, stats: Counter[str] | None = None
) -> list[Match]:
    """Two-option MT matches, one per kept chain, distractors mirrored (module docs)."""
    chains = _cap_golds(_collect_chains(index, cfg, rng, stats), stats)
    out: list[Match] = []
    for key in sorted(chains):
        group = _balanced(chains[key], stats)
        n = len(group)
        for i, (f1, f2) in enumerate(group):
            g1, g2 = group[(i + n // 2) % n]
            if not _usable(index, f1, f2, g1.object, g2):
                note(stats, UNUSABLE)
                continue
            options = [f1.object, g1.object]
            rng.shuffle(options)
            conditionals = [[f1.object, f2.object], [g1.object, g2.object]]
            rng.shuffle(conditionals)
            out.append(
                Match(
                    "MT",
                    [f1, f2, g2],
                    target=f1,
                    bridge=None,
                    answer=f1.object,
                    extra={
                        "options": options,
                        "distractor": g1.object,
                        "distractor_fact": [g2.subject, g2.relation, g2.object],
                        "conditionals": conditionals,
                    },
                )
            )
            if cfg.max_matches is not None and len(out) >= cfg.max_matches:
                return out
    return out


def _collect_chains(
    index: GraphIndex, cfg: MatchConfig, rng: random.Random, stats: Counter[str] | None
) -> dict[tuple[str, str], list[tuple[Fact, Fact]]]:
    """Two-hop chains (s r1 k)(k r2 n) with r1 and r2 single-valued, by relation pair, seeded."""
    chains: dict[tuple[str, str], list[tuple[Fact, Fact]]] = {}
    for f1 in sample_targets(index.facts, rng):
        if cfg.require_unique and not index.is_unique(f1.subject, f1.relation):
            continue
        for f2 in index.chains(f1, rng, cfg.max_per_target):
            if not index.is_unique(f2.subject, f2.relation):
                note(stats, NOT_SINGLE)
                continue
            chains.setdefault((f1.relation, f2.relation), []).append((f1, f2))
    return chains


def _cap_golds(
    chains: dict[tuple[str, str], list[tuple[Fact, Fact]]], stats: Counter[str] | None
) -> dict[tuple[str, str], list[tuple[Fact, Fact]]]:
    """At most ``cap`` chains per gold over all relation pairs, ``cap`` the largest with
    cap <= GOLD_SHARE * (chains left); no cap when no cap fits (the source has too few golds:
    one chain each would still put a gold over the share)."""
    counts = Counter(f1.object for group in chains.values() for f1, _ in group)
    cap = max(counts.values(), default=1)  # no k fits: even one chain a gold is over the share
    for k in range(cap, 0, -1):
        if k <= GOLD_SHARE * sum(min(c, k) for c in counts.values()):
            cap = k
            break
    seen: Counter[str] = Counter()
    out: dict[tuple[str, str], list[tuple[Fact, Fact]]] = {}
    for key, group in chains.items():
        for f1, f2 in group:
            seen[f1.object] += 1
            if seen[f1.object] > cap:
                note(stats, GOLD_CAP)
                continue
            out.setdefault(key, []).append((f1, f2))
    return out


def _balanced(
    group: list[tuple[Fact, Fact]], stats: Counter[str] | None
) -> list[tuple[Fact, Fact]]:
    """``group`` sorted by second-hop value with no value on more than half of it (the chains
    over that are dropped, last drawn first), so a shift by half pairs different values."""
    group = list(group)
    while group:
        by_value = Counter(f2.object for _, f2 in group)
        value, top = by_value.most_common(1)[0]
        if top <= len(group) // 2:
            break
        drop = max(i for i, (_, f2) in enumerate(group) if f2.object == value)
        del group[drop]
        note(stats, NO_PARTNER)
    order = {v: i for i, v in enumerate(dict.fromkeys(f2.object for _, f2 in group))}
    return sorted(group, key=lambda c: order[c[1].object])  # stable: seeded order within a value


def _usable(index: GraphIndex, f1: Fact, f2: Fact, m: str, g2: Fact) -> bool:
    """Whether m (with its fact g2 = (m r2 n_m)) can be f1's distractor: not an r1 object of
    the subject, another r2 value, and no two of the names (subject, options, values) alike."""
    if m in index.objects(f1.subject, f1.relation) or m in (f1.subject, f1.object):
        return False
    if g2.object in (f2.object, f1.subject, f1.object, m):
        return False
    ents = [f1.subject, f1.object, m, f2.object, g2.object]
    labels = [index.norm_label(e) for e in ents]
    if len(set(labels)) < len(labels):
        return False
    # the subject's name must not share a word with an option or a value ("Japanese cuisine")
    own = index.long_tokens(f1.subject)
    return not any(own & index.long_tokens(e) for e in ents[1:])
